use tokio_util::sync::CancellationToken;

/// Who is calling a tool, and a way to cancel the call.
///
/// Cheap to clone (the token is reference-counted). Tools that act on behalf
/// of a user (memory tools) take their scope from here, never from the model's
/// arguments.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ToolContext {
    /// The agent session id, when there is one.
    pub session_id: Option<String>,
    /// The calling agent's name.
    pub agent_name: Option<String>,
    /// The end user's id.
    pub user_id: Option<String>,
    /// Cancelled when the turn is cancelled; long-running tools should watch it.
    pub cancellation: CancellationToken,
}

impl ToolContext {
    /// An empty context with a fresh cancellation token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Sets the agent name.
    pub fn with_agent_name(mut self, agent_name: impl Into<String>) -> Self {
        self.agent_name = Some(agent_name.into());
        self
    }

    /// Sets the user id.
    pub fn with_user_id(mut self, user_id: impl Into<String>) -> Self {
        self.user_id = Some(user_id.into());
        self
    }

    /// Uses `token` for cancellation.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }
}
