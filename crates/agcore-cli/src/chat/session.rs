//! The agent session behind `agcore chat`: building it, streaming a turn,
//! flushing memory.

use std::io::Write;
use std::sync::Arc;

use agcore::agent::{AgentBuilder, AgentError, AgentEvent, AgentSession, SimpleAgent};
use agcore::attach::MemoryManager;
use agcore::llm::CycleEvent;
use agcore::memory::long_term::{MaintenanceSchedule, MaintenanceTask};
use agcore::memory::retriever::{MemoryRetriever, RetrieverConfig};
use agcore::memory::{ConversationMemory, ConversationMemoryConfig, KnowledgeStore, MemoryStore};
use agcore::prompt::PromptTemplateRegistry;
use agcore::prompt::builtin::names;
use futures::StreamExt;

use super::endpoint::Endpoint;
use super::setup;
use crate::config::AppConfig;
use crate::error::CliError;
use crate::scope::OpenedMemory;

/// Most pages one `retrieve` call of `--wiki` returns (the model may ask
/// for fewer).
const WIKI_RESULTS: usize = 5;

/// When scheduled maintenance first runs after the chat starts (or after
/// `maintenance_interval` when that is shorter): late enough to stay off
/// the first turns, early enough that short chats run it too.
const FIRST_MAINTENANCE: std::time::Duration = std::time::Duration::from_secs(60);

/// A running chat: the session and what a new session needs.
pub(crate) struct Chat {
    session: AgentSession,
    agent: Arc<SimpleAgent>,
    bundle: Arc<agcore::agent::RuntimeBundle>,
    user: String,
    /// Where conversations are stored, and how they are bounded.
    store: Arc<dyn MemoryStore>,
    conversation_config: ConversationMemoryConfig,
    /// Scheduled long-term maintenance (`maintenance_interval`), `None` when off.
    maintenance: Option<MaintenanceTask>,
}

impl Chat {
    /// Builds the agent with long-term memory on `opened` and, when given,
    /// the memory attachments `attachments` and the `retrieve` tool over
    /// the wiki `wiki` (`--wiki`), in the stored conversation `resume`
    /// (`--resume`) or a new one.
    ///
    /// # Errors
    /// [`CliError::Config`] for a bad endpoint or `[memory_agent]` timeout;
    /// [`CliError::Agent`] when the bundle cannot be built;
    /// [`CliError::Memory`] when the stored conversation cannot be read.
    pub(crate) async fn start(
        endpoint: &Endpoint,
        config: &AppConfig,
        opened: &OpenedMemory,
        attachments: Option<Arc<MemoryManager>>,
        prompts: PromptTemplateRegistry,
        wiki: Option<Arc<KnowledgeStore>>,
        resume: Option<String>,
    ) -> Result<Self, CliError> {
        let provider = endpoint.provider()?;
        let options = setup::long_term_options(config)?;
        let agent_config = setup::agent_config(config, &endpoint.model);
        let conversation_config = agent_config.conversation_config();
        // The base layer: the agent's `prompt_template`, else `cli.chat.base`
        // (each overridable from the prompts folder).
        let scope = opened.scoped.scope();
        let template = config
            .attach
            .agent(scope.agent())
            .and_then(|a| a.prompt_template.as_deref())
            .unwrap_or(names::CLI_CHAT_BASE);
        let base_prompt = setup::base_prompt(&prompts, template)?;
        let mut builder = AgentBuilder::new()
            .provider(Arc::clone(&provider))
            .base_prompt(base_prompt)
            .prompts(prompts)
            .config(agent_config)
            .long_term_memory(opened.memory.clone(), options);
        if let Some(manager) = attachments {
            builder = builder.memory_attachments(manager);
        }
        if let Some(wiki) = wiki {
            let config = RetrieverConfig::default().with_max_results(WIKI_RESULTS);
            builder = builder.retriever(Arc::new(MemoryRetriever::over_knowledge(wiki, config)));
        }
        let bundle = builder.build()?;
        let agent = Arc::new(SimpleAgent::new(scope.agent()));
        let user = scope.user().to_owned();
        let maintenance = start_maintenance(config, opened)?;
        let mut chat = Self {
            session: AgentSession::new(agent.clone(), Arc::clone(&bundle)),
            agent,
            bundle,
            user,
            store: opened.storage.store(),
            conversation_config,
            maintenance,
        };
        chat.session = chat.open_session(resume).await?;
        Ok(chat)
    }

    /// A session in the stored conversation `id`, or in a new one (a random
    /// UUID) when `None`; its turns are stored as they complete.
    async fn open_session(&self, id: Option<String>) -> Result<AgentSession, CliError> {
        let id = id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let conversation = ConversationMemory::new(
            Arc::clone(&self.store),
            id,
            self.conversation_config.clone(),
        )?
        .with_owner(agcore::agent::Agent::name(self.agent.as_ref()), &self.user);
        let agent: Arc<dyn agcore::agent::Agent> = self.agent.clone();
        let session =
            AgentSession::from_conversation(conversation, agent, Arc::clone(&self.bundle)).await?;
        Ok(session.with_user_id(&self.user)?)
    }

    /// The id of the conversation (`--resume ID` continues it).
    pub(crate) fn session_id(&self) -> &str {
        self.session.session_id()
    }

    /// Messages of the conversation so far (those of a resumed one included).
    pub(crate) fn history_len(&self) -> usize {
        self.session.history().len()
    }

    /// Runs one turn, writing the reply to stdout as it streams and a line
    /// per tool call to stderr; Ctrl-C cancels it.
    ///
    /// # Errors
    /// The turn's [`AgentError`]; the history is unchanged then.
    pub(crate) async fn turn(&mut self, input: &str) -> Result<(), AgentError> {
        let cancel = self.session.cancellation_token();
        let mut stream = self.session.submit_turn_stream(input);
        let mut out = std::io::stdout();
        let mut wrote = false;
        loop {
            // Ctrl-C cancels the running turn (the history stays as before it).
            let event = tokio::select! {
                event = stream.next() => event,
                _ = tokio::signal::ctrl_c() => {
                    cancel.cancel();
                    continue;
                }
            };
            let Some(event) = event else { break };
            let event = match event {
                Ok(event) => event,
                Err(err) => {
                    if wrote {
                        // End the partial reply's line.
                        let _ = writeln!(out).and_then(|()| out.flush());
                    }
                    return Err(err);
                }
            };
            match event {
                AgentEvent::Cycle(event) => {
                    if let Some(text) = event.text_delta() {
                        // A closed stdout only loses the display, not the turn.
                        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
                        wrote = true;
                    }
                    if let CycleEvent::ToolResult { call, is_error, .. } = &event {
                        let status = if *is_error { "failed" } else { "done" };
                        eprintln!("[{} {status}]", call.function.name);
                    }
                }
                AgentEvent::TurnCompleted { .. } if wrote => {
                    let _ = writeln!(out).and_then(|()| out.flush());
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Flushes memory and starts a new conversation (memories are kept;
    /// the old conversation stays stored).
    ///
    /// # Errors
    /// The user id refused by [`AgentSession::with_user_id`] (it was checked
    /// when the chat opened, so only a changed rule would do it); storage errors.
    pub(crate) async fn reset(&mut self) -> Result<(), CliError> {
        self.flush().await;
        self.session = self.open_session(None).await?;
        Ok(())
    }

    /// Flushes memory before exit; Ctrl-C skips the flush (the turns stay
    /// in the dialogue buffer).
    pub(crate) async fn finish(&mut self) {
        if let Some(task) = self.maintenance.take() {
            // A run in progress completes before the database is closed.
            task.shutdown().await;
        }
        tokio::select! {
            () = self.flush() => {}
            _ = tokio::signal::ctrl_c() => {
                eprintln!("(memory extraction skipped; the turns stay in the dialogue buffer)");
            }
        }
    }

    /// Ends the session's memory work ([`AgentSession::finish`]: the running
    /// extraction, then the turns buffered since). Failures are reported on
    /// stderr; the buffer is kept for the next session's extraction.
    async fn flush(&mut self) {
        match self.session.finish().await {
            Ok(report) => tracing::info!(?report, "memory extraction at exit"),
            Err(err) => eprintln!(
                "warning: memory extraction failed ({}); the turns stay in the dialogue buffer",
                err.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// Starts maintenance over every scope on `maintenance_interval` (first
/// run after [`FIRST_MAINTENANCE`] or the interval, whichever is shorter);
/// `None` when the interval is off. Each run is logged with its counts.
///
/// # Errors
/// [`CliError::Config`] for an unparsable interval or no async runtime.
fn start_maintenance(
    config: &AppConfig,
    opened: &OpenedMemory,
) -> Result<Option<MaintenanceTask>, CliError> {
    let long_term = &config.settings.memory.long_term;
    let period = long_term
        .maintenance_period()
        .map_err(|e| CliError::Config(e.to_string()))?;
    let Some(every) = period.filter(|_| long_term.enabled) else {
        return Ok(None);
    };
    let schedule = MaintenanceSchedule::every(every).first_run_after(every.min(FIRST_MAINTENANCE));
    opened
        .memory
        .spawn_maintenance(schedule)
        .map(Some)
        .map_err(|e| CliError::Config(format!("scheduled maintenance: {e}")))
}
