use std::future::Future;
use std::marker::PhantomData;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::typed::{parse_args, serialize_output};
use crate::{Tool, ToolContext, ToolError, ToolOutput, parameters_schema};

/// A tool made from an async closure with typed arguments.
///
/// The closure receives the parsed arguments and a clone of the
/// [`ToolContext`]; the parameter schema comes from `A`'s `JsonSchema` derive.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use agcore_tools::{FnTool, Tool, ToolContext, ToolError};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct EchoArgs {
///     text: String,
/// }
///
/// let echo: Arc<dyn Tool> = Arc::new(FnTool::new(
///     "echo",
///     "Returns the text unchanged.",
///     |args: EchoArgs, _ctx: ToolContext| async move { Ok::<_, ToolError>(args.text) },
/// ));
/// assert_eq!(echo.name(), "echo");
/// ```
pub struct FnTool<A, O, F> {
    name: String,
    description: String,
    parameters: serde_json::Value,
    func: F,
    _types: PhantomData<fn(A) -> O>,
}

impl<A, O, F, Fut> FnTool<A, O, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    O: Serialize + Send + 'static,
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    /// A tool called `name` running `func`.
    pub fn new(name: impl Into<String>, description: impl Into<String>, func: F) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters: parameters_schema::<A>(),
            func,
            _types: PhantomData,
        }
    }
}

impl<A, O, F> std::fmt::Debug for FnTool<A, O, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<A, O, F, Fut> Tool for FnTool<A, O, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    O: Serialize + Send + 'static,
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> serde_json::Value {
        self.parameters.clone()
    }

    async fn execute(
        &self,
        args: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args = parse_args::<A>(&self.name, args)?;
        let output = (self.func)(args, ctx.clone()).await?;
        serialize_output(&self.name, &output)
    }
}
