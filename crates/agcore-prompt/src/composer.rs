use agcore_types::{ChatMessage, MessageContent, Role, ToolCall};

use crate::{EnvironmentContext, PromptError, append_system_reminder};

/// One layer of the system prompt, in assembly order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SystemLayer {
    /// The application's base instructions (identity, rules).
    Base,
    /// The current agent's own prompt (its role and task).
    Agent,
    /// Runtime facts: working directory, platform, date ([`EnvironmentContext`]).
    Environment,
    /// Recalled memories, as a `<memory-context>` block.
    MemoryContext,
}

impl SystemLayer {
    /// Every layer, in the order they are joined.
    pub const ORDER: [SystemLayer; 4] = [
        SystemLayer::Base,
        SystemLayer::Agent,
        SystemLayer::Environment,
        SystemLayer::MemoryContext,
    ];
}

/// Separator between system-prompt layers.
pub const LAYER_SEPARATOR: &str = "\n\n";

/// Builds the message list for one model call: a layered system prompt
/// followed by the conversation (user, assistant and tool messages).
///
/// The system prompt is assembled from up to four layers in a fixed order —
/// [`SystemLayer::Base`], [`SystemLayer::Agent`], [`SystemLayer::Environment`],
/// [`SystemLayer::MemoryContext`] — joined by a blank line; empty or
/// whitespace-only layers are skipped, and with no layer at all no system
/// message is sent. Layers are recomputed on every [`compose`](Self::compose)
/// call and nothing is cached: change the agent, the memory context or the
/// environment between calls and the next call carries the new text, and an
/// environment without a fixed date reads the clock again. This follows
/// OpenCode's system prompt, which is rebuilt for every LLM request
/// (`packages/opencode/src/session/llm/request.ts`).
///
/// # Examples
///
/// ```
/// use agcore_prompt::PromptComposer;
/// use agcore_types::Role;
///
/// let composer = PromptComposer::new()
///     .system("你是一个天气助手")
///     .agent("Answer in one sentence.")
///     .memory_context("[user] prefers Celsius")
///     .user("北京今天天气如何?");
/// let messages = composer.compose();
/// assert_eq!(messages.len(), 2);
/// assert_eq!(messages[0].role, Role::System);
/// assert_eq!(
///     messages[0].text(),
///     "你是一个天气助手\n\nAnswer in one sentence.\n\n<memory-context>\n[user] prefers Celsius\n</memory-context>"
/// );
/// ```
#[derive(Debug, Clone, Default)]
pub struct PromptComposer {
    base: String,
    agent: String,
    environment: Option<EnvironmentContext>,
    memory_context: String,
    messages: Vec<ChatMessage>,
}

impl PromptComposer {
    /// A composer with no layers and no messages.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the base layer (same as [`Self::base`]).
    pub fn system(self, text: impl Into<String>) -> Self {
        self.base(text)
    }

    /// Sets the base layer.
    pub fn base(mut self, text: impl Into<String>) -> Self {
        self.set_base(text);
        self
    }

    /// Sets the agent layer.
    pub fn agent(mut self, text: impl Into<String>) -> Self {
        self.set_agent(text);
        self
    }

    /// Sets the environment layer.
    pub fn environment(mut self, env: EnvironmentContext) -> Self {
        self.set_environment(Some(env));
        self
    }

    /// Sets the memory-context layer. Text not already wrapped in
    /// `<memory-context>` tags is wrapped:
    /// `"<memory-context>\n{text}\n</memory-context>"`.
    pub fn memory_context(mut self, text: impl Into<String>) -> Self {
        self.set_memory_context(text);
        self
    }

    /// Appends a user message.
    pub fn user(self, content: impl Into<MessageContent>) -> Self {
        self.message(ChatMessage::user(content))
    }

    /// Appends an assistant message.
    pub fn assistant(self, content: impl Into<MessageContent>) -> Self {
        self.message(ChatMessage::assistant(content))
    }

    /// Appends an assistant message that calls tools.
    pub fn assistant_tool_calls(self, calls: Vec<ToolCall>) -> Self {
        self.message(ChatMessage::assistant_tool_calls(calls))
    }

    /// Appends a tool-result message answering `tool_call_id`.
    pub fn tool(self, tool_call_id: impl Into<String>, content: impl Into<MessageContent>) -> Self {
        self.message(ChatMessage::tool(tool_call_id, content))
    }

    /// Appends any message.
    pub fn message(mut self, message: ChatMessage) -> Self {
        self.push(message);
        self
    }

    /// Appends messages in order (for example the stored history).
    pub fn messages(mut self, messages: impl IntoIterator<Item = ChatMessage>) -> Self {
        self.messages.extend(messages);
        self
    }

    /// Replaces the base layer (`""` clears it).
    pub fn set_base(&mut self, text: impl Into<String>) {
        self.base = text.into();
    }

    /// Replaces the agent layer (`""` clears it).
    pub fn set_agent(&mut self, text: impl Into<String>) {
        self.agent = text.into();
    }

    /// Replaces or clears the environment layer.
    pub fn set_environment(&mut self, env: Option<EnvironmentContext>) {
        self.environment = env;
    }

    /// Replaces the memory-context layer (`""` clears it); wraps as
    /// [`Self::memory_context`] does.
    pub fn set_memory_context(&mut self, text: impl Into<String>) {
        self.memory_context = wrap_memory_context(text.into());
    }

    /// Appends a message.
    pub fn push(&mut self, message: ChatMessage) {
        self.messages.push(message);
    }

    /// Removes every message, keeping the layers.
    pub fn clear_messages(&mut self) {
        self.messages.clear();
    }

    /// The conversation messages (without the system message).
    pub fn history(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// Appends a `<system-reminder>` part to the last message, which must be
    /// a user message (see [`append_system_reminder`]).
    ///
    /// # Errors
    /// [`PromptError::InvalidMessage`] when there is no message or the last
    /// one is not a user message; nothing changes.
    pub fn append_system_reminder(&mut self, text: &str) -> Result<(), PromptError> {
        let last = self
            .messages
            .last_mut()
            .ok_or_else(|| PromptError::InvalidMessage("no message to remind on".to_owned()))?;
        append_system_reminder(last, text)
    }

    /// The non-empty layers, in [`SystemLayer::ORDER`], computed now.
    pub fn layers(&self) -> Vec<(SystemLayer, String)> {
        SystemLayer::ORDER
            .into_iter()
            .filter_map(|layer| {
                let text = match layer {
                    SystemLayer::Base => self.base.trim().to_owned(),
                    SystemLayer::Agent => self.agent.trim().to_owned(),
                    SystemLayer::Environment => {
                        self.environment.as_ref().map(EnvironmentContext::render)?
                    }
                    SystemLayer::MemoryContext => self.memory_context.clone(),
                };
                (!text.trim().is_empty()).then_some((layer, text))
            })
            .collect()
    }

    /// The system prompt: the non-empty layers joined by a blank line, or
    /// `None` when every layer is empty. Computed now.
    pub fn system_prompt(&self) -> Option<String> {
        let layers = self.layers();
        if layers.is_empty() {
            return None;
        }
        Some(
            layers
                .into_iter()
                .map(|(_, text)| text)
                .collect::<Vec<_>>()
                .join(LAYER_SEPARATOR),
        )
    }

    /// The messages to send: the system message (when any layer is set)
    /// followed by the conversation in order. Computed now.
    pub fn compose(&self) -> Vec<ChatMessage> {
        let mut out = Vec::with_capacity(self.messages.len() + 1);
        if let Some(system) = self.system_prompt() {
            out.push(ChatMessage::system(system));
        }
        out.extend(self.messages.iter().cloned());
        out
    }

    /// How many messages of `role` the conversation holds (the system
    /// message [`compose`](Self::compose) adds is not counted).
    pub fn count(&self, role: Role) -> usize {
        self.messages.iter().filter(|m| m.role == role).count()
    }
}

fn wrap_memory_context(text: String) -> String {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return String::new();
    }
    if trimmed.starts_with("<memory-context>") {
        return trimmed.to_owned();
    }
    format!("<memory-context>\n{trimmed}\n</memory-context>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_context_wrapping() {
        assert_eq!(wrap_memory_context("  ".into()), "");
        assert_eq!(
            wrap_memory_context("a".into()),
            "<memory-context>\na\n</memory-context>"
        );
        let block = "<memory-context>\nb\n</memory-context>";
        assert_eq!(wrap_memory_context(format!("\n{block}\n")), block);
    }

    #[test]
    fn no_layers_no_system_message() {
        let composer = PromptComposer::new().base("  ").user("hi");
        let messages = composer.compose();
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].role, Role::User);
    }

    #[test]
    fn reminder_needs_a_trailing_user_message() {
        let mut composer = PromptComposer::new();
        assert!(composer.append_system_reminder("x").is_err());
        composer.push(ChatMessage::assistant("a"));
        assert!(composer.append_system_reminder("x").is_err());
        composer.push(ChatMessage::user("u"));
        composer.append_system_reminder("x").unwrap();
        assert!(composer.history()[1].text().contains("<system-reminder>"));
    }
}
