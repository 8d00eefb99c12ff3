use agcore_types::ToolDefinition;
use async_trait::async_trait;

use crate::{ToolContext, ToolError};

/// What a tool returns: text for the model (JSON values are serialized compactly).
pub type ToolOutput = serde_json::Value;

/// One tool a model can call.
///
/// Implementations are `Send + Sync` and shared as `Arc<dyn Tool>`.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Unique name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// JSON Schema of the arguments object.
    fn parameters(&self) -> serde_json::Value;

    /// Runs the tool with already-validated `args` (a JSON object).
    ///
    /// A string result is given to the model as is; any other JSON value is
    /// serialized.
    ///
    /// # Errors
    /// A [`ToolError`], usually [`ToolError::ExecutionFailed`].
    async fn execute(
        &self,
        args: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError>;

    /// The definition sent to the model.
    fn definition(&self) -> ToolDefinition {
        ToolDefinition::function(self.name(), self.description(), self.parameters())
    }
}
