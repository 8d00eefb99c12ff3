//! A session kept in a [`ConversationMemory`]: created from the stored
//! conversation, and every committed turn's messages appended to it.

use std::sync::Arc;

use agcore_memory::ConversationMemory;
use agcore_types::Role;

use super::AgentSession;
use crate::{Agent, AgentError, RuntimeBundle};

impl AgentSession {
    /// A session that continues the stored conversation `conversation`
    /// (or starts it, when it holds no message yet): the session id is the
    /// conversation's, its stored messages become the history (cut to
    /// [`crate::AgentConfig::max_history`] as after a turn), the turn count
    /// continues from the user messages found, and the messages of every
    /// turn committed from now on are appended to it. A failed write is
    /// logged and the turn stays committed in the session.
    ///
    /// The conversation's own window, capacity and compaction apply to what
    /// is stored ([`crate::AgentConfig::conversation_config`] gives the ones
    /// matching the session's limits); give it an owner
    /// ([`ConversationMemory::with_owner`]) to have it listed by
    /// [`agcore_memory::list_conversations`].
    ///
    /// # Errors
    /// [`AgentError::Memory`] when the stored messages cannot be read.
    pub async fn from_conversation(
        conversation: ConversationMemory,
        agent: Arc<dyn Agent>,
        bundle: Arc<RuntimeBundle>,
    ) -> Result<Self, AgentError> {
        let mut history = conversation.get_history().await?;
        let max = bundle.config.max_history;
        let mut session = Self::with_id(conversation.session_id().to_owned(), agent, bundle);
        let turns = history.iter().filter(|m| m.role == Role::User).count();
        session.turn_index = u32::try_from(turns).unwrap_or(u32::MAX);
        if let Some(max) = max {
            super::history::trim_history(&mut history, max);
        }
        session.history = history;
        session.conversation = Some(Arc::new(conversation));
        Ok(session)
    }

    /// The stored conversation of a session made by
    /// [`AgentSession::from_conversation`].
    pub fn conversation(&self) -> Option<&ConversationMemory> {
        self.conversation.as_deref()
    }

    /// Appends the committed turn's messages — those after the first
    /// `before` of the history, or from its last user message when
    /// compaction rewrote the history — to the stored conversation.
    pub(super) async fn store_turn(&self, before: usize) {
        let Some(conversation) = &self.conversation else {
            return;
        };
        let starts_turn = self
            .history
            .get(before)
            .is_some_and(|m| m.role == Role::User);
        let from = if starts_turn {
            before
        } else {
            self.history
                .iter()
                .rposition(|m| m.role == Role::User)
                .unwrap_or(self.history.len())
        };
        for message in self.history.get(from..).unwrap_or_default() {
            if let Err(err) = conversation.add_message(message.clone()).await {
                tracing::warn!(error = %err, session = %self.session_id, "the turn could not be stored in the conversation");
                return;
            }
        }
    }
}
