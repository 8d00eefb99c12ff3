//! [`IntoTool`]: what builders accept where a tool is expected.

use std::sync::Arc;

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{FnTool, Tool, ToolContext, ToolError, TypedTool, TypedToolAdapter};

/// Anything that becomes an `Arc<dyn Tool>`: a [`TypedTool`] (wrapped in a
/// [`TypedToolAdapter`], which generates its parameter schema once) or an
/// `Arc<dyn Tool>` as is (an [`crate::FnTool`], an MCP tool, a tool of your
/// own).
///
/// Builders take `impl IntoTool`, so `.tool(Add)` and `.tool(shared_tool)`
/// both work.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
///
/// use agcore_tools::{FnTool, IntoTool, Tool, ToolContext, ToolError};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct EchoArgs {
///     text: String,
/// }
///
/// let echo = FnTool::new("echo", "Returns the text.", |args: EchoArgs, _ctx: ToolContext| async move {
///     Ok::<_, ToolError>(args.text)
/// });
/// let shared: Arc<dyn Tool> = echo.into_dyn_tool();
/// assert_eq!(shared.clone().into_dyn_tool().name(), "echo");
/// ```
pub trait IntoTool {
    /// The tool, shared.
    fn into_dyn_tool(self) -> Arc<dyn Tool>;
}

impl<T: TypedTool> IntoTool for T {
    fn into_dyn_tool(self) -> Arc<dyn Tool> {
        Arc::new(TypedToolAdapter::new(self))
    }
}

impl IntoTool for Arc<dyn Tool> {
    fn into_dyn_tool(self) -> Arc<dyn Tool> {
        self
    }
}

impl<A, O, F, Fut> IntoTool for FnTool<A, O, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    O: Serialize + Send + 'static,
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    fn into_dyn_tool(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}
