use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

/// The names of the tools whose results came back earlier in one turn, in
/// the order they first returned (each name once). Shared by the clones of
/// a [`ToolContext`], so a tool can tell what the model had read before it
/// was called — e.g. `memory_save` records which tool results a memory may
/// have been derived from (its provenance).
#[derive(Debug, Clone, Default)]
pub struct ToolResultLog(Arc<Mutex<Vec<String>>>);

impl ToolResultLog {
    /// Records that `name` returned a result (once per name).
    pub fn record(&self, name: &str) {
        let mut names = match self.0.lock() {
            Ok(names) => names,
            Err(poisoned) => poisoned.into_inner(),
        };
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }

    /// The recorded names, first returned first.
    pub fn names(&self) -> Vec<String> {
        match self.0.lock() {
            Ok(names) => names.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

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
    /// Tools whose results came back earlier with this context (filled by
    /// the executors of this crate after every successful call).
    pub results_seen: ToolResultLog,
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
