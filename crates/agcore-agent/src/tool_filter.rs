use std::sync::Arc;

use agcore_tools::{ContextToolExecutor, ToolContext, ToolRegistry};
use agcore_types::{ChatMessage, ToolCall, ToolDefinition, ToolExecutionError, ToolExecutor};
use async_trait::async_trait;

/// Runs the registry's tools for one agent: only the tools on its allow-list,
/// with the session's [`ToolContext`].
pub(crate) struct AgentToolExecutor {
    inner: ContextToolExecutor,
    agent_name: String,
    allowed: Option<Vec<String>>,
}

impl AgentToolExecutor {
    pub(crate) fn new(
        registry: &Arc<ToolRegistry>,
        context: ToolContext,
        agent_name: &str,
        allowed: Option<&[String]>,
    ) -> Self {
        Self {
            inner: registry.executor(context),
            agent_name: agent_name.to_owned(),
            allowed: allowed.map(<[String]>::to_vec),
        }
    }

    fn allows(&self, name: &str) -> bool {
        self.allowed
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|a| a == name))
    }
}

#[async_trait]
impl ToolExecutor for AgentToolExecutor {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.inner
            .definitions()
            .into_iter()
            .filter(|d| self.allows(d.name()))
            .collect()
    }

    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
        if !self.allows(call.name()) {
            return Err(ToolExecutionError::recoverable(
                call.name(),
                format!(
                    "tool `{}` is not available to agent `{}`",
                    call.name(),
                    self.agent_name
                ),
            ));
        }
        self.inner.execute(call).await
    }
}
