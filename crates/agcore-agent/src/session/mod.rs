//! [`AgentSession`]: one conversation of one agent, turn by turn.

mod attach;
mod history;
mod long_term;
mod stored;
mod stream;
mod turn;

use std::sync::Arc;
use std::time::Instant;

use agcore_llm::CostTracker;
use agcore_types::ChatMessage;
use tokio_util::sync::CancellationToken;

use crate::{Agent, AgentError, RuntimeBundle, SessionMemory};

pub use stream::{AgentEvent, AgentStream};

/// One conversation between a user and an agent.
///
/// Holds the agent (`Arc<dyn Agent>`), the shared [`RuntimeBundle`], the
/// history (without the system prompt, which is rebuilt every turn), the turn
/// counter, the cost so far and the session's [`SessionMemory`].
/// [`AgentSession::submit_turn`] runs one turn; a failed turn leaves the
/// history as it was before it (its cost is still counted).
pub struct AgentSession {
    session_id: String,
    user_id: Option<String>,
    agent: Arc<dyn Agent>,
    bundle: Arc<RuntimeBundle>,
    turn_index: u32,
    cost: CostTracker,
    history: Vec<ChatMessage>,
    session_memory: SessionMemory,
    created_at: Instant,
    cancel: CancellationToken,
    pending_reminder: Option<String>,
    bridged: Vec<String>,
    /// The long-term memory steps of the current agent and user, once a
    /// turn needed them.
    long_term: Option<crate::turn_memory::TurnMemory>,
    /// The `<memory-context>` block of the running (or last) turn's prompt.
    memory_block: String,
    /// Ids of the long-term memories prefetched into that block.
    recalled_ids: Vec<i64>,
    /// Where committed turns are stored ([`AgentSession::from_conversation`]).
    conversation: Option<Arc<agcore_memory::ConversationMemory>>,
}

impl std::fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession")
            .field("session_id", &self.session_id)
            .field("agent", &self.agent.name())
            .field("turn_index", &self.turn_index)
            .field("history", &self.history.len())
            .finish_non_exhaustive()
    }
}

impl AgentSession {
    /// A new session with a random id (UUID v4).
    pub fn new(agent: Arc<dyn Agent>, bundle: Arc<RuntimeBundle>) -> Self {
        Self::with_id(uuid::Uuid::new_v4().to_string(), agent, bundle)
    }

    /// A new session with the given id; sessions with the same id share their
    /// [`SessionMemory`] (that is how contexts of one session bridge).
    pub fn with_id(
        session_id: impl Into<String>,
        agent: Arc<dyn Agent>,
        bundle: Arc<RuntimeBundle>,
    ) -> Self {
        let session_id = session_id.into();
        let session_memory =
            SessionMemory::new(Arc::clone(&bundle.session_memory_store), &session_id);
        let cost = CostTracker::with_shared_prices(Arc::clone(&bundle.config.llm.prices));
        Self {
            session_id,
            user_id: None,
            agent,
            bundle,
            turn_index: 0,
            cost,
            history: Vec::new(),
            session_memory,
            created_at: Instant::now(),
            cancel: CancellationToken::new(),
            pending_reminder: None,
            bridged: Vec::new(),
            long_term: None,
            memory_block: String::new(),
            recalled_ids: Vec::new(),
            conversation: None,
        }
    }

    /// Sets the end user's id: the user part of the long-term memory scope
    /// and `ToolContext::user_id` of the session's tool calls.
    ///
    /// # Errors
    /// [`AgentError::Memory`] with [`MemoryError::InvalidInput`] when the id
    /// breaks the rules of [`MemoryScope::new`] (empty, padded, over
    /// [`MAX_SCOPE_PART_BYTES`] bytes, control or invisible format
    /// characters, whitespace other than a space); the session is not built,
    /// so no turn runs with memory silently off.
    ///
    /// [`MemoryError::InvalidInput`]: agcore_memory::MemoryError::InvalidInput
    /// [`MemoryScope::new`]: agcore_memory::long_term::MemoryScope::new
    /// [`MAX_SCOPE_PART_BYTES`]: agcore_memory::long_term::MAX_SCOPE_PART_BYTES
    pub fn with_user_id(mut self, user_id: impl Into<String>) -> Result<Self, AgentError> {
        let user_id = user_id.into();
        agcore_memory::long_term::MemoryScope::check_user(&user_id)?;
        self.user_id = Some(user_id);
        Ok(self)
    }

    /// Sets a user id that already passed the checks of
    /// [`AgentSession::with_user_id`] (a `ChatAgent`'s own user, or
    /// [`crate::DEFAULT_USER_ID`], which a test checks).
    pub(crate) fn with_checked_user_id(mut self, user_id: String) -> Self {
        self.user_id = Some(user_id);
        self
    }

    /// Continues the conversation `history` (user, assistant and tool
    /// messages, no system prompt; for example [`AgentSession::history`] of
    /// a session of the same conversation built on another bundle, when the
    /// agent's settings changed). The turn counter starts at 0.
    #[must_use]
    pub fn with_history(mut self, history: Vec<ChatMessage>) -> Self {
        self.history = history;
        self
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The end user's id, if set.
    pub fn user_id(&self) -> Option<&str> {
        self.user_id.as_deref()
    }

    /// The current agent.
    pub fn agent(&self) -> &Arc<dyn Agent> {
        &self.agent
    }

    /// The runtime bundle.
    pub fn bundle(&self) -> &Arc<RuntimeBundle> {
        &self.bundle
    }

    /// Number of turns completed (the next turn's 0-based index).
    pub fn turn_index(&self) -> u32 {
        self.turn_index
    }

    /// Usage and cost of every request of this session, failed turns included.
    pub fn cost_so_far(&self) -> &CostTracker {
        &self.cost
    }

    /// The conversation so far (user, assistant and tool messages; no system prompt).
    pub fn history(&self) -> &[ChatMessage] {
        &self.history
    }

    /// The session's key–value memory.
    pub fn session_memory(&self) -> &SessionMemory {
        &self.session_memory
    }

    /// Time since the session was created.
    pub fn age(&self) -> std::time::Duration {
        self.created_at.elapsed()
    }

    /// A token that cancels the running (or next) turn when cancelled. After a
    /// cancelled turn the session takes a fresh token, so get it again.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Switches to another agent inside this conversation, as OpenCode does:
    /// the history is kept, the system prompt is rebuilt from the new agent on
    /// the next turn, and the next user message carries one synthetic
    /// `<system-reminder>` saying the agent changed.
    pub fn switch_agent(&mut self, agent: Arc<dyn Agent>) {
        let from = self.agent.name().to_owned();
        let to = agent.name().to_owned();
        self.agent = agent;
        if from != to {
            self.pending_reminder = Some(format!(
                "The active agent changed from `{from}` to `{to}`. Follow `{to}`'s instructions \
                 in the system prompt from now on; the conversation so far is kept."
            ));
        }
    }

    /// Adds a note to this session's memory-context layer (used by
    /// [`crate::ContextManager::bridge`]).
    pub fn add_bridged_note(&mut self, note: impl Into<String>) {
        self.bridged.push(note.into());
    }

    /// The text of the last assistant message, if any.
    pub fn last_assistant_text(&self) -> Option<String> {
        self.history
            .iter()
            .rev()
            .find(|m| m.role == agcore_types::Role::Assistant && m.content.is_some())
            .map(ChatMessage::text)
    }
}
