//! [`ChatRuntime`]: the LLM endpoint of the server's chat turns and the
//! agent runtime built for each turn from the agent's record.

use std::sync::Arc;

use agcore::agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore::llm::LlmProvider;
use agcore::memory::long_term::MemoryScope;
use tokio::sync::OwnedMutexGuard;

use super::conversations::{Conversation, Conversations, finish_session};
use crate::agents::AgentRecord;
use crate::{AppState, ServerError};

/// Most conversations held open by default.
pub const DEFAULT_MAX_CONVERSATIONS: usize = 1_000;

/// Most turns of one conversation.
const MAX_TURNS: u32 = 100_000;

/// What the server's chat turns run on: the provider of the configured LLM
/// endpoint, its default model, the long-term memory options of the
/// server's configuration (each agent's `memory` section then switches
/// memory off or sets the prefetch limit), the agent settings, the base
/// prompt, and the open conversations. Set with
/// [`AppState::with_chat`](crate::AppState::with_chat); without it chat
/// answers 503.
pub struct ChatRuntime {
    provider: Arc<dyn LlmProvider>,
    config: AgentConfig,
    options: LongTermOptions,
    base_prompt: Option<String>,
    pub(crate) conversations: Conversations,
}

impl std::fmt::Debug for ChatRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatRuntime")
            .field("provider", &self.provider.name())
            .field("model", &self.config.llm.model)
            .field("options", &self.options)
            .field("conversations", &self.conversations.len())
            .finish_non_exhaustive()
    }
}

impl ChatRuntime {
    /// Turns on `provider` asking for `model` (unless an agent names its
    /// own), with the default long-term options and agent settings.
    pub fn new(provider: Arc<dyn LlmProvider>, model: impl Into<String>) -> Self {
        Self {
            provider,
            config: AgentConfig::new(model).with_max_turns(MAX_TURNS),
            options: LongTermOptions::default(),
            base_prompt: None,
            conversations: Conversations::new(DEFAULT_MAX_CONVERSATIONS),
        }
    }

    /// Sets the long-term memory options (from the server's `[memory]` /
    /// `[memory_agent]` settings); an agent's `memory.enabled = false`
    /// turns them off for its turns and its `prefetch_limit` replaces theirs.
    #[must_use]
    pub fn with_long_term(mut self, options: LongTermOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the agent settings (limits, history, compaction, sampling); the
    /// model stays the one given to [`ChatRuntime::new`] unless `config`
    /// names another.
    #[must_use]
    pub fn with_agent_config(mut self, config: AgentConfig) -> Self {
        self.config = config;
        self
    }

    /// Sets the base layer of every turn's system prompt (the agent's
    /// `instructions` come after it).
    #[must_use]
    pub fn with_base_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.base_prompt = Some(prompt.into());
        self
    }

    /// Sets the most conversations held open (default [`DEFAULT_MAX_CONVERSATIONS`]).
    #[must_use]
    pub fn with_max_conversations(mut self, max: usize) -> Self {
        self.conversations.set_max(max);
        self
    }

    /// The default model id.
    pub fn model(&self) -> &str {
        &self.config.llm.model
    }

    /// Finishes the memory work of every open conversation.
    pub async fn finish(&self) {
        self.conversations.finish().await;
    }

    /// The agent and runtime of `record`'s turns over the server's memory.
    fn build(
        &self,
        state: &AppState,
        record: &AgentRecord,
    ) -> Result<(Arc<SimpleAgent>, Arc<agcore::agent::RuntimeBundle>), ServerError> {
        let options = self
            .options
            .clone()
            .enabled(self.options.enabled && record.memory.enabled)
            .prefetch_limit(record.memory.prefetch_limit);
        let mut config = self.config.clone();
        if let Some(model) = record.model.as_deref().filter(|m| !m.trim().is_empty()) {
            model.trim().clone_into(&mut config.llm.model);
        }
        let mut builder = AgentBuilder::new()
            .provider(Arc::clone(&self.provider))
            .config(config)
            .long_term_memory(state.memory.clone(), options);
        if let Some(base) = &self.base_prompt {
            builder = builder.base_prompt(base.clone());
        }
        let bundle = builder
            .build()
            .map_err(|e| ServerError::Unavailable(format!("chat runtime: {e}")))?;
        let mut agent = SimpleAgent::new(record.name.clone());
        if !record.instructions.trim().is_empty() {
            agent = agent.with_system_prompt(record.instructions.clone());
        }
        Ok((Arc::new(agent), bundle))
    }

    /// Conversation `session` of `scope`, locked for one turn: the open one
    /// when `record` is unchanged, else a new session on `record`'s
    /// settings continuing the same history (the old session's memory work
    /// finishes in the background).
    ///
    /// # Errors
    /// [`ServerError::Invalid`] for a user id a session refuses;
    /// [`ServerError::Unavailable`] when the runtime cannot be built.
    pub(crate) async fn open(
        &self,
        state: &AppState,
        scope: &MemoryScope,
        session: &str,
        record: AgentRecord,
    ) -> Result<OwnedMutexGuard<Option<Conversation>>, ServerError> {
        let slot = self.conversations.slot(scope, session);
        let mut guard = slot.lock_owned().await;
        if guard.as_ref().is_some_and(|c| c.record == record) {
            return Ok(guard);
        }
        let (agent, bundle) = self.build(state, &record)?;
        let history = match guard.take() {
            Some(Conversation { mut session, .. }) => {
                let history = session.history().to_vec();
                tokio::spawn(async move { finish_session(&mut session).await });
                history
            }
            None => Vec::new(),
        };
        let new = AgentSession::with_id(session, agent, bundle)
            .with_history(history)
            .with_user_id(scope.user())
            .map_err(|e| ServerError::Invalid(format!("chat: {e}")))?;
        *guard = Some(Conversation {
            session: new,
            record,
        });
        Ok(guard)
    }
}
