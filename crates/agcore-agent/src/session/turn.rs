use std::sync::Arc;

use agcore_llm::compact::CompactConfig;
use agcore_llm::{HookContext, HookEvent, LlmCycle};
use agcore_prompt::builtin::names;
use agcore_prompt::{PromptComposer, SystemLayer, TemplateContext, system_reminder};
use agcore_tools::ToolContext;
use agcore_types::{ChatResponse, MessageContent};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::AgentSession;
use crate::AgentError;
use crate::attach::Stage;
use crate::tool_filter::AgentToolExecutor;

impl AgentSession {
    /// Runs one turn: checks the limits, fires `OnTurnStart`, rebuilds the
    /// layered system prompt (base, agent, environment, memory context with
    /// the session-memory snapshot), sends `input` with the history, runs the
    /// tool loop up to `max_tool_turns`, fires `OnTurnEnd`, and returns the
    /// model's final response.
    ///
    /// On success the history gains the user message, the assistant
    /// messages and tool results of the turn; on failure it is unchanged.
    /// Usage is added to [`AgentSession::cost_so_far`] either way.
    ///
    /// # Errors
    /// [`AgentError::LimitExceeded`] (turn limit, session TTL, tool-turn limit),
    /// [`AgentError::HookBlocked`], [`AgentError::Cancelled`],
    /// [`AgentError::Llm`] for provider failures after retries,
    /// [`AgentError::Memory`] when the session memory cannot be read.
    pub async fn submit_turn(
        &mut self,
        input: impl Into<MessageContent>,
    ) -> Result<ChatResponse, AgentError> {
        self.submit_turn_at(Stage::Gen, input).await
    }

    /// [`AgentSession::submit_turn`] for a turn at `stage` of a task:
    /// [`Stage::Plan`] when the model is asked for a plan, [`Stage::Critique`]
    /// for a review of the work so far, [`Stage::Gen`] for an answer (what
    /// `submit_turn` does). The memory attachments retrieved before the
    /// turn are those of `pre` and `stage`; only `gen` turns are recorded
    /// in the attachments with `write: true` (see
    /// `docs/memory-attachments.md`, *Stages*). [`Stage::Pre`] is the same
    /// as [`Stage::Gen`].
    ///
    /// # Errors
    /// Those of [`AgentSession::submit_turn`].
    pub async fn submit_turn_at(
        &mut self,
        stage: Stage,
        input: impl Into<MessageContent>,
    ) -> Result<ChatResponse, AgentError> {
        let stage = if stage == Stage::Pre {
            Stage::Gen
        } else {
            stage
        };
        let span = tracing::info_span!(
            "agent_turn",
            session = %self.session_id,
            agent = %self.agent.name(),
            turn = self.turn_index,
            stage = stage.as_str()
        );
        async {
            let input = input.into();
            let mut cycle = self.begin_turn(stage, &input).await?;
            let content = self.user_content(input);
            let result = cycle.submit(content).await;
            self.cost += cycle.cost();
            let response = result.map_err(|e| self.turn_failed(e))?;
            self.end_turn(stage, cycle, &response).await?;
            Ok(response)
        }
        .instrument(span)
        .await
    }

    /// Checks limits, fires `OnTurnStart`, prefetches long-term memories for
    /// `input` and builds the turn's cycle.
    pub(super) async fn begin_turn(
        &mut self,
        stage: Stage,
        input: &MessageContent,
    ) -> Result<LlmCycle, AgentError> {
        let config = &self.bundle.config;
        if self.turn_index >= config.max_turns {
            return Err(AgentError::LimitExceeded(format!(
                "session `{}` reached max_turns = {}",
                self.session_id, config.max_turns
            )));
        }
        if let Some(ttl) = config.session_ttl
            && self.age() >= ttl
        {
            return Err(AgentError::LimitExceeded(format!(
                "session `{}` expired: older than its TTL of {ttl:?}",
                self.session_id
            )));
        }
        let start = HookContext::new(HookEvent::OnTurnStart).with_turn_index(self.turn_index);
        let verdict = self
            .bundle
            .hook_executor
            .execute(HookEvent::OnTurnStart, &start)
            .await;
        verdict.into_result().map_err(AgentError::from_llm)?;
        let recalled = self.long_term_before_turn(&input.text()).await;
        let attached = self.attachments_before_turn(stage, &input.text()).await;
        let recalled = match (recalled, attached) {
            (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
            (a, b) => a.or(b),
        };
        let (system_prompt, block) = self.compose_system_prompt(recalled).await?;
        self.memory_block = block;
        Ok(self.build_cycle(system_prompt))
    }

    /// The layered system prompt of the next turn, rebuilt from the current
    /// agent, environment and session memory, followed by the long-term
    /// memory instructions when the bundle has long-term memory and the
    /// session a user id (the per-turn prefetched memories are not
    /// included: they depend on the user's message).
    ///
    /// # Errors
    /// [`AgentError::Memory`] when the session memory cannot be read;
    /// [`AgentError::Prompt`] when an override of `memory.instructions.*`
    /// fails to render.
    pub async fn system_prompt(&self) -> Result<Option<String>, AgentError> {
        Ok(self.compose_system_prompt(None).await?.0)
    }

    /// The system prompt with `recalled` (a `<memory-context>` body from
    /// long-term memory) added to the memory layer, and that layer's
    /// `<memory-context>` block (`""` when empty).
    async fn compose_system_prompt(
        &self,
        recalled: Option<String>,
    ) -> Result<(Option<String>, String), AgentError> {
        let mut composer = PromptComposer::new();
        if let Some(base) = &self.bundle.base_prompt {
            composer.set_base(base.clone());
        }
        if let Some(agent) = self.agent.system_prompt() {
            composer.set_agent(agent);
        }
        composer.set_environment(self.bundle.environment.clone());
        let mut memory = vec![self.session_memory.snapshot().await?];
        memory.extend(self.bridged.iter().cloned());
        memory.extend(recalled);
        let memory: Vec<String> = memory.into_iter().filter(|m| !m.is_empty()).collect();
        if !memory.is_empty() {
            composer.set_memory_context(memory.join("\n\n"));
        }
        let instructions = match self
            .bundle
            .long_term
            .as_ref()
            .filter(|lt| self.user_id.is_some() && lt.options.tools)
        {
            Some(lt) => crate::long_term::render_memory_instructions(
                &self.bundle.prompts,
                lt.options.language,
            )?,
            None => None,
        };
        let block = composer
            .layers()
            .into_iter()
            .find(|(layer, _)| *layer == SystemLayer::MemoryContext)
            .map(|(_, text)| text)
            .unwrap_or_default();
        let prompt = match (composer.system_prompt(), instructions) {
            (Some(prompt), Some(extra)) => Some(format!("{prompt}\n\n{extra}")),
            (None, Some(extra)) => Some(extra),
            (prompt, None) => prompt,
        };
        Ok((prompt, block))
    }

    fn build_cycle(&self, system_prompt: Option<String>) -> LlmCycle {
        let bundle = &self.bundle;
        let mut context = ToolContext::new()
            .with_session_id(self.session_id.clone())
            .with_agent_name(self.agent.name())
            .with_cancellation(self.cancel.clone());
        if let Some(user) = &self.user_id {
            context = context.with_user_id(user.clone());
        }
        let tools = AgentToolExecutor::new(
            &bundle.tool_registry,
            context,
            self.agent.name(),
            self.agent.allowed_tools(),
        );
        let mut cycle = LlmCycle::new_with_arc(
            Arc::clone(&bundle.provider),
            bundle.config.cycle_config().clone(),
        )
        .with_messages(self.history.clone())
        .with_hooks(Arc::clone(&bundle.hook_executor))
        .with_tools(Arc::new(tools))
        .with_cancellation(self.cancel.clone());
        if let Some(prompt) = system_prompt {
            cycle = cycle.with_system_prompt(prompt);
        }
        if let Some(compact) = &bundle.config.compact_config {
            cycle = cycle.with_compact_config(self.compact_config(compact));
            if let Some(lt) = &bundle.long_term
                && let Some(provider) = &lt.options.extraction_provider
            {
                // The `[memory_agent]` model writes the summaries too.
                let model = lt
                    .options
                    .extraction_model
                    .clone()
                    .unwrap_or_else(|| bundle.config.llm.model.clone());
                cycle = cycle.with_summary_model(Arc::clone(provider), model);
            }
        }
        cycle
    }

    /// `compact` with the bundle's `compaction.summary` override, when there
    /// is one and the config sets no instruction of its own (an override
    /// that fails to render is logged and the built-in text sent).
    fn compact_config(&self, compact: &CompactConfig) -> CompactConfig {
        let prompts = &self.bundle.prompts;
        if compact.summary_instruction.is_some() || !prompts.contains(names::COMPACTION_SUMMARY) {
            return compact.clone();
        }
        match prompts.render(names::COMPACTION_SUMMARY, &TemplateContext::new()) {
            Ok(text) => compact.clone().with_summary_instruction(text),
            Err(err) => {
                tracing::warn!(error = %err, "the compaction.summary prompt failed to render; the built-in text is used");
                compact.clone()
            }
        }
    }

    /// The user message content, with the pending agent-switch reminder appended.
    pub(super) fn user_content(&self, mut input: MessageContent) -> MessageContent {
        if let Some(reminder) = &self.pending_reminder {
            input.push_text(system_reminder(reminder));
        }
        input
    }

    /// Maps a cycle error; a cancelled turn gets the session a fresh token.
    pub(super) fn turn_failed(&mut self, err: agcore_llm::LlmError) -> AgentError {
        let err = AgentError::from_llm(err);
        if matches!(err, AgentError::Cancelled) {
            self.cancel = CancellationToken::new();
        }
        tracing::warn!(error = %err, "turn failed");
        err
    }

    /// Fires `OnTurnEnd` and commits the turn's messages.
    pub(super) async fn end_turn(
        &mut self,
        stage: Stage,
        mut cycle: LlmCycle,
        response: &ChatResponse,
    ) -> Result<(), AgentError> {
        let end = HookContext::new(HookEvent::OnTurnEnd)
            .with_turn_index(self.turn_index)
            .with_response(response);
        let verdict = self
            .bundle
            .hook_executor
            .execute(HookEvent::OnTurnEnd, &end)
            .await;
        verdict.into_result().map_err(AgentError::from_llm)?;
        let before = self.history.len();
        self.history = cycle.take_messages();
        self.pending_reminder = None;
        self.turn_index += 1;
        self.long_term_after_turn(&response.text()).await;
        self.attachments_after_turn(stage, before).await;
        self.store_turn(before).await;
        if let Some(max) = self.bundle.config.max_history {
            let dropped = super::history::trim_history(&mut self.history, max);
            if dropped > 0 {
                tracing::debug!(dropped, max, "history trimmed to max_history");
            }
        }
        Ok(())
    }
}
