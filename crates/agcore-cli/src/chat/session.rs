//! The agent session behind `agcore chat`: building it, streaming a turn,
//! flushing memory.

use std::io::Write;
use std::sync::Arc;

use agcore::agent::long_term::run_extraction;
use agcore::agent::{
    AgentBuilder, AgentConfig, AgentError, AgentEvent, AgentSession, LongTermOptions, SimpleAgent,
};
use agcore::llm::{CycleConfig, CycleEvent, HookExecutor, LlmProvider};
use agcore::memory::long_term::ScopedMemory;
use agcore::tools::ToolRegistry;
use futures::StreamExt;

use super::endpoint::Endpoint;
use crate::config::AppConfig;
use crate::error::CliError;
use crate::scope::OpenedMemory;

/// The base layer of the system prompt.
const BASE_PROMPT: &str = "You are agcore, a helpful assistant that remembers the user across \
conversations. Answer concisely. When the user tells you something worth remembering (a \
preference, a fact about them or their work, a correction), save it with `memory_save`; when \
earlier knowledge could help, use `memory_recall`.";

/// Most turns of one session.
const MAX_TURNS: u32 = 100_000;

/// A running chat: the session, and what a final extraction needs.
pub(crate) struct Chat {
    session: AgentSession,
    agent: Arc<SimpleAgent>,
    bundle: Arc<agcore::agent::RuntimeBundle>,
    user: String,
    scoped: ScopedMemory,
    provider: Arc<dyn LlmProvider>,
    model: String,
    options: LongTermOptions,
}

impl Chat {
    /// Builds the agent with long-term memory on `opened`.
    ///
    /// # Errors
    /// [`CliError::Config`] for a bad endpoint or `[memory_agent]` timeout;
    /// [`CliError::Agent`] when the bundle cannot be built.
    pub(crate) fn start(
        endpoint: &Endpoint,
        config: &AppConfig,
        opened: &OpenedMemory,
    ) -> Result<Self, CliError> {
        let provider = endpoint.provider()?;
        let mut options = LongTermOptions::from_settings(&config.settings)
            .map_err(|e| CliError::Config(format!("[memory_agent]: {e}")))?;
        if !config.extraction_configured {
            options = options.extraction(true);
        }
        let mut agent_config = AgentConfig::new(endpoint.model.clone()).with_max_turns(MAX_TURNS);
        if let Some(max_tokens) = config.llm.max_tokens {
            agent_config = agent_config
                .with_llm(CycleConfig::new(endpoint.model.clone()).with_max_tokens(max_tokens));
        }
        let bundle = AgentBuilder::new()
            .provider(Arc::clone(&provider))
            .tool_registry(Arc::new(ToolRegistry::new()))
            .hook_executor(Arc::new(HookExecutor::new()))
            .base_prompt(BASE_PROMPT)
            .config(agent_config)
            .long_term_memory(opened.memory.clone(), options.clone())
            .build()?;
        let scope = opened.scoped.scope();
        let agent = Arc::new(SimpleAgent::new(scope.agent.clone()));
        let user = scope.user.clone();
        let session = AgentSession::new(agent.clone(), Arc::clone(&bundle)).with_user_id(&user);
        Ok(Self {
            session,
            agent,
            bundle,
            user,
            scoped: opened.scoped.clone(),
            model: options
                .extraction_model
                .clone()
                .unwrap_or_else(|| endpoint.model.clone()),
            provider,
            options,
        })
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

    /// Flushes memory and starts a new session (memories are kept).
    pub(crate) async fn reset(&mut self) {
        self.flush().await;
        self.session = AgentSession::new(self.agent.clone(), Arc::clone(&self.bundle))
            .with_user_id(&self.user);
    }

    /// Flushes memory before exit; Ctrl-C skips the flush (the turns stay
    /// in the dialogue buffer).
    pub(crate) async fn finish(&mut self) {
        tokio::select! {
            () = self.flush() => {}
            _ = tokio::signal::ctrl_c() => {
                eprintln!("(memory extraction skipped; the turns stay in the dialogue buffer)");
            }
        }
    }

    /// Waits for a running extraction, then extracts facts from the turns
    /// still buffered. Failures are reported on stderr; the buffer is kept
    /// for the next session's extraction.
    async fn flush(&mut self) {
        if let Err(err) = self.session.flush_memory().await {
            eprintln!("warning: memory extraction failed: {err}");
        }
        if !self.options.extraction {
            return;
        }
        let session_id = self.session.session_id().to_owned();
        match self.scoped.buffer_pending(&session_id, 1).await {
            Ok(pending) if pending.is_empty() => return,
            Ok(_) => {}
            Err(err) => {
                eprintln!("warning: reading the dialogue buffer failed: {err}");
                return;
            }
        }
        let result = run_extraction(
            self.scoped.clone(),
            session_id,
            Arc::clone(&self.provider),
            self.model.clone(),
            self.options.clone(),
        )
        .await;
        match result {
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
