//! The session's long-term memory: a [`TurnMemory`] for the current agent
//! and user, created on first use and replaced when the agent changes (the
//! old one, dropped, extracts its buffered turns in the background).

use crate::turn_memory::{ExtractionModel, ExtractionReport, TurnMemory};

use super::AgentSession;
use crate::AgentError;

impl AgentSession {
    /// The memory steps for the current agent and user, `None` without
    /// long-term memory or a user id (or with an agent name that cannot
    /// name a scope, logged).
    fn turn_memory(&mut self) -> Option<&mut TurnMemory> {
        let runtime = self.bundle.long_term.as_ref()?;
        let user = self.user_id.as_deref()?;
        let agent = self.agent.name();
        let current = self.long_term.as_ref().is_some_and(|m| {
            m.scoped().scope().agent() == agent && m.scoped().scope().user() == user
        });
        if !current {
            let scoped = match runtime.memory.scope(agent, user) {
                Ok(scoped) => scoped,
                Err(err) => {
                    tracing::warn!(error = %err, "long-term memory: the agent name cannot name a scope; skipped");
                    return None;
                }
            };
            let model = ExtractionModel {
                provider: std::sync::Arc::clone(&self.bundle.provider),
                model: self.bundle.config.llm.model.clone(),
            };
            self.long_term = Some(TurnMemory::new(
                runtime.memory.clone(),
                scoped,
                runtime.options.clone(),
                self.session_id.clone(),
                model,
                std::sync::Arc::clone(&self.bundle.prompts),
            ));
        }
        self.long_term.as_mut()
    }

    /// Prefetch for the turn whose user message is `query`: the
    /// `<memory-context>` body, or `None`; the ids of the entries it holds
    /// go to `recalled_ids`.
    pub(super) async fn long_term_before_turn(&mut self, query: &str) -> Option<String> {
        self.recalled_ids.clear();
        let history = std::mem::take(&mut self.history);
        let context = match self.turn_memory() {
            Some(memory) => {
                let context = memory.before_turn(query, &history).await;
                let ids = memory.injected().iter().map(|e| e.id).collect();
                self.recalled_ids = ids;
                context
            }
            None => None,
        };
        self.history = history;
        context
    }

    /// After a committed turn whose final reply is `reply`: usage feedback,
    /// the dialogue buffer and background extraction ([`TurnMemory::after_turn`]).
    pub(super) async fn long_term_after_turn(&mut self, reply: &str) {
        if self.turn_memory().is_none() {
            return;
        }
        if let Some(memory) = self.long_term.as_mut() {
            memory.after_turn(reply, &self.history).await;
        }
    }

    /// Ends the session's memory work ([`TurnMemory::finish`]): waits for a
    /// running extraction, then extracts the turns buffered since (fewer
    /// than `batch_size`, which the turns alone would not have sent), and
    /// waits for the embedding queue of dense retrieval. Returns the last
    /// extraction's report. A session dropped without `finish` starts that
    /// last extraction in the background when a Tokio runtime is running,
    /// with a warning.
    ///
    /// # Errors
    /// The extraction's error as [`AgentError::Memory`] (the buffer is kept
    /// for a later run).
    pub async fn finish(&mut self) -> Result<Option<ExtractionReport>, AgentError> {
        match self.long_term.as_mut() {
            Some(memory) => Ok(memory.finish().await?),
            None => Ok(None),
        }
    }

    /// Waits for the background fact extraction started by an earlier turn,
    /// if one is running or finished unobserved, and returns its result.
    /// `Ok(None)` when none was started since the last call.
    ///
    /// # Errors
    /// The extraction's error as [`AgentError::Memory`] (the buffer was kept
    /// and is read again by the next run).
    pub async fn flush_memory(&mut self) -> Result<Option<ExtractionReport>, AgentError> {
        match self.long_term.as_mut() {
            Some(memory) => Ok(memory.flush().await?),
            None => Ok(None),
        }
    }
}
