use std::sync::Arc;

use agcore_types::{ChatMessage, ToolCall, ToolDefinition, ToolExecutionError, ToolExecutor};
use async_trait::async_trait;

use crate::{ToolContext, ToolError, ToolOutput, ToolRegistry};

/// The text a tool result is given to the model as: a JSON string as is,
/// any other value serialized compactly.
pub fn output_text(output: &ToolOutput) -> String {
    match output {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Runs one model tool call through `registry` with `ctx`.
///
/// Arguments that are not JSON, unknown tools and recoverable [`ToolError`]s
/// become recoverable errors (their text goes back to the model, which may
/// correct itself); denied permissions, cancellation, dead MCP servers and
/// other non-recoverable errors end the tool loop.
async fn execute_call(
    registry: &ToolRegistry,
    call: &ToolCall,
    ctx: &ToolContext,
) -> Result<ChatMessage, ToolExecutionError> {
    let name = call.name();
    let args = call.arguments_json().map_err(|e| {
        ToolExecutionError::recoverable(name, format!("{e}; send the arguments as a JSON object"))
    })?;
    match registry.invoke(name, args, ctx).await {
        Ok(output) => Ok(ChatMessage::tool(call.id.clone(), output_text(&output))),
        Err(ToolError::NotFound(_)) => Err(ToolExecutionError::recoverable(
            name,
            format!(
                "no tool named `{name}`; available tools: {}",
                registry.names().join(", ")
            ),
        )),
        Err(e) if e.is_recoverable() => Err(ToolExecutionError::recoverable(name, e.to_string())),
        Err(e) => Err(ToolExecutionError::fatal(name, e.to_string())),
    }
}

/// Runs calls with an empty [`ToolContext`] (no session or user, never
/// cancelled); use [`ToolRegistry::executor`] to run them on behalf of a
/// session and user with a cancellation token.
#[async_trait]
impl ToolExecutor for ToolRegistry {
    fn definitions(&self) -> Vec<ToolDefinition> {
        ToolRegistry::definitions(self)
    }

    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
        execute_call(self, call, &ToolContext::new()).await
    }
}

/// A [`ToolRegistry`] bound to one [`ToolContext`], as a
/// [`ToolExecutor`] for the LLM tool loop.
#[derive(Debug, Clone)]
pub struct ContextToolExecutor {
    registry: Arc<ToolRegistry>,
    context: ToolContext,
}

impl ContextToolExecutor {
    /// The context the calls run with.
    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    /// The registry the calls run on.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }
}

#[async_trait]
impl ToolExecutor for ContextToolExecutor {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry.definitions()
    }

    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
        execute_call(&self.registry, call, &self.context).await
    }
}

impl ToolRegistry {
    /// A [`ToolExecutor`] running this registry's tools with `context`
    /// (session, agent, user, cancellation).
    pub fn executor(self: &Arc<Self>, context: ToolContext) -> ContextToolExecutor {
        ContextToolExecutor {
            registry: Arc::clone(self),
            context,
        }
    }
}
