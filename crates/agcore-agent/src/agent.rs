use agcore_types::ToolDefinition;

use crate::RuntimeBundle;

/// An agent: a role with a system prompt and a set of tools.
///
/// The runtime ([`crate::AgentSession`]) owns the conversation; the agent only
/// says who it is. Shared as `Arc<dyn Agent>`.
pub trait Agent: Send + Sync {
    /// Unique name (shown in logs, passed to tools as `ToolContext::agent_name`).
    fn name(&self) -> &str;

    /// The agent's layer of the system prompt, if any.
    fn system_prompt(&self) -> Option<&str>;

    /// Names of the tools this agent may use; `None` (the default) means
    /// every tool of the bundle's registry.
    fn allowed_tools(&self) -> Option<&[String]> {
        None
    }

    /// Definitions sent to the model: the registry's tools, filtered by
    /// [`Agent::allowed_tools`].
    fn tool_definitions(&self, bundle: &RuntimeBundle) -> Vec<ToolDefinition> {
        let all = bundle.tool_registry.definitions();
        match self.allowed_tools() {
            None => all,
            Some(allowed) => all
                .into_iter()
                .filter(|d| allowed.iter().any(|a| a == d.name()))
                .collect(),
        }
    }
}

/// A plain [`Agent`]: a name, an optional prompt and an optional tool allow-list.
#[derive(Debug, Clone)]
pub struct SimpleAgent {
    name: String,
    system_prompt: Option<String>,
    allowed_tools: Option<Vec<String>>,
}

impl SimpleAgent {
    /// An agent with no prompt of its own and every tool.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            system_prompt: None,
            allowed_tools: None,
        }
    }

    /// Sets the agent's system prompt layer.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Restricts the agent to these tools.
    pub fn with_allowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }
}

impl Agent for SimpleAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn system_prompt(&self) -> Option<&str> {
        self.system_prompt.as_deref()
    }

    fn allowed_tools(&self) -> Option<&[String]> {
        self.allowed_tools.as_deref()
    }
}
