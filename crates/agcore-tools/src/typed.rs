use std::marker::PhantomData;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Tool, ToolContext, ToolError, ToolOutput, parameters_schema};

/// A tool with typed arguments and output: the argument struct's
/// `JsonSchema` derive gives the parameter schema, `Deserialize` parses the
/// model's arguments, and the output is serialized to JSON.
///
/// Wrap it with [`TypedTool::into_tool`] (or [`TypedToolAdapter::new`]) to get
/// an `Arc<dyn Tool>` for a [`crate::ToolRegistry`].
///
/// # Examples
///
/// ```
/// use agcore_tools::{ToolContext, ToolError, TypedTool};
/// use async_trait::async_trait;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     a: i64,
///     b: i64,
/// }
///
/// struct Add;
///
/// #[async_trait]
/// impl TypedTool for Add {
///     type Args = AddArgs;
///     type Output = i64;
///     fn name(&self) -> &str { "add" }
///     fn description(&self) -> &str { "Adds two integers." }
///     async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<i64, ToolError> {
///         args.a.checked_add(args.b).ok_or_else(|| ToolError::ExecutionFailed {
///             tool: "add".into(),
///             message: "overflow".into(),
///         })
///     }
/// }
///
/// let tool = Add.into_tool();
/// assert_eq!(tool.parameters()["required"], serde_json::json!(["a", "b"]));
/// ```
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments; its JSON Schema becomes the tool's `parameters`
    /// (see [`parameters_schema`]).
    type Args: DeserializeOwned + JsonSchema + Send + 'static;
    /// The result; serialized to JSON for the model (a `String` is given as is).
    type Output: Serialize + Send + 'static;

    /// Unique name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// Runs the tool.
    ///
    /// # Errors
    /// A [`ToolError`], usually [`ToolError::ExecutionFailed`].
    async fn call(&self, args: Self::Args, ctx: &ToolContext) -> Result<Self::Output, ToolError>;

    /// Wraps the tool as an `Arc<dyn Tool>`.
    fn into_tool(self) -> Arc<dyn Tool>
    where
        Self: Sized,
    {
        Arc::new(TypedToolAdapter::new(self))
    }
}

/// Adapts a [`TypedTool`] to [`Tool`]; the schema is generated once, here.
pub struct TypedToolAdapter<T: TypedTool> {
    inner: T,
    parameters: serde_json::Value,
    _args: PhantomData<fn() -> T::Args>,
}

impl<T: TypedTool> TypedToolAdapter<T> {
    /// Wraps `tool`, generating its parameter schema.
    pub fn new(tool: T) -> Self {
        Self {
            inner: tool,
            parameters: parameters_schema::<T::Args>(),
            _args: PhantomData,
        }
    }

    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.inner
    }
}

impl<T: TypedTool> std::fmt::Debug for TypedToolAdapter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedToolAdapter")
            .field("name", &self.inner.name())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<T: TypedTool> Tool for TypedToolAdapter<T> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> serde_json::Value {
        self.parameters.clone()
    }

    async fn execute(
        &self,
        args: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args = parse_args::<T::Args>(self.inner.name(), args)?;
        let output = self.inner.call(args, ctx).await?;
        serialize_output(self.inner.name(), &output)
    }
}

/// Deserializes already-validated arguments into `A`.
pub(crate) fn parse_args<A: DeserializeOwned>(
    tool: &str,
    args: serde_json::Value,
) -> Result<A, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_owned(),
        path: String::new(),
        message: e.to_string(),
    })
}

/// Serializes a tool result to JSON.
pub(crate) fn serialize_output<O: Serialize>(
    tool: &str,
    output: &O,
) -> Result<ToolOutput, ToolError> {
    serde_json::to_value(output).map_err(|e| ToolError::ExecutionFailed {
        tool: tool.to_owned(),
        message: format!("cannot serialize the result: {e}"),
    })
}
