//! [`TurnMemory`]: the one owner of a conversation's long-term memory steps.

use std::sync::Arc;

use agcore_llm::LlmProvider;
use agcore_prompt::PromptTemplateRegistry;
use agcore_types::ChatMessage;
use tokio::task::JoinHandle;

use super::LongTermOptions;
use super::extract::ExtractionReport;
use super::feedback::{Feedback, recalled_ids, turn_tool_lines};
use super::prefetch::prefetch_with_header;
use super::prompt::memory_context_preamble;
use super::short_term::ShortTerm;
use agcore_memory::MemoryError;
use agcore_memory::long_term::{LongTermMemory, MemoryEntry, ScopedMemory};

pub(super) type Extraction = JoinHandle<Result<ExtractionReport, MemoryError>>;

/// The model that extracts facts when [`LongTermOptions`] names none: the
/// conversation's own provider and model.
#[derive(Clone)]
pub struct ExtractionModel {
    /// The provider asked (unless `LongTermOptions::extraction_provider`).
    pub provider: Arc<dyn LlmProvider>,
    /// The model name sent (unless `LongTermOptions::extraction_model`).
    pub model: String,
}

impl std::fmt::Debug for ExtractionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtractionModel")
            .field("provider", &self.provider.name())
            .field("model", &self.model)
            .finish()
    }
}

/// The long-term memory steps of one conversation (one session id, one
/// agent + user scope), in one place: [`TurnMemory::before_turn`] (prefetch
/// into the `<memory-context>` block), [`TurnMemory::after_turn`] (usage
/// feedback for what was shown or recalled, the dialogue-buffer append, a
/// background fact extraction every `extract.batch_size` turns) and
/// [`TurnMemory::finish`] (the last extraction and the embedding queue).
/// Dropped without `finish`, it starts the extraction of the turns it
/// buffered in the background when a Tokio runtime is running, with a
/// warning.
///
/// The agent runtime (`AgentSession`) calls these steps; a program with its
/// own chat loop can call them too. A failing step is logged and never
/// fails the turn: memory is an aid, not a precondition.
pub struct TurnMemory {
    pub(super) scoped: ScopedMemory,
    pub(super) memory: LongTermMemory,
    pub(super) options: LongTermOptions,
    pub(super) session_id: String,
    pub(super) model: ExtractionModel,
    pub(super) prompts: Arc<PromptTemplateRegistry>,
    /// The user message of the running turn.
    query: String,
    /// The entries injected into the running turn.
    injected: Vec<MemoryEntry>,
    /// Turns buffered since the last extraction started.
    pub(super) turns_since_extraction: usize,
    /// The extraction running in the background, if any.
    pub(super) extraction: Option<Extraction>,
    /// The usage feedback of the last turn, written in the background (each
    /// turn's task waits for the previous one, so they apply in order).
    feedback: Option<JoinHandle<()>>,
    /// [`TurnMemory::finish`] ran after the last buffered turn.
    pub(super) finished: bool,
    /// The conversation's recent turns (short-term memory).
    pub(super) short_term: ShortTerm,
    /// Instruction-like lines of the recent turns' tool results (the last
    /// [`MAX_TOOL_LINES`]), which no extracted fact may repeat.
    pub(super) tool_lines: Vec<String>,
}

/// Most instruction-like tool-result lines kept for the extraction screen.
const MAX_TOOL_LINES: usize = 256;

impl std::fmt::Debug for TurnMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnMemory")
            .field("scope", self.scoped.scope())
            .field("session_id", &self.session_id)
            .field("options", &self.options)
            .field("model", &self.model)
            .field("turns_since_extraction", &self.turns_since_extraction)
            .finish_non_exhaustive()
    }
}

impl TurnMemory {
    /// The memory steps of conversation `session_id` in `scoped` (a scope of
    /// `memory`), with `options`; extraction falls back to `model`, and the
    /// prompts named `memory.context_preamble.*` and `memory.extraction` are
    /// read from `prompts` (built-in texts unless overridden).
    pub fn new(
        memory: LongTermMemory,
        scoped: ScopedMemory,
        options: LongTermOptions,
        session_id: impl Into<String>,
        model: ExtractionModel,
        prompts: Arc<PromptTemplateRegistry>,
    ) -> Self {
        Self {
            scoped,
            memory,
            options,
            session_id: session_id.into(),
            model,
            prompts,
            query: String::new(),
            injected: Vec::new(),
            turns_since_extraction: 0,
            extraction: None,
            feedback: None,
            finished: false,
            short_term: ShortTerm::default(),
            tool_lines: Vec::new(),
        }
    }

    /// The scope this conversation reads and writes.
    pub fn scoped(&self) -> &ScopedMemory {
        &self.scoped
    }

    /// The long-term entries the last [`TurnMemory::before_turn`] put in
    /// the `<memory-context>` block, best match first (empty before the
    /// first turn, and once [`TurnMemory::after_turn`] took them).
    pub fn injected(&self) -> &[MemoryEntry] {
        &self.injected
    }

    /// Prefetch for the turn whose user message is `query`, sent after the
    /// messages `history`: the `<memory-context>` body — the long-term
    /// entries found for `query`, then the last `inject.short_term_count`
    /// short-term turns no longer in `history`, within the token budget —
    /// or `None` (prefetch off, the rules say no and no short-term turn is
    /// due, nothing found, or a failure, which is logged).
    pub async fn before_turn(&mut self, query: &str, history: &[ChatMessage]) -> Option<String> {
        query.clone_into(&mut self.query);
        self.injected.clear();
        let header = match memory_context_preamble(&self.prompts, self.options.language) {
            Ok(header) => header,
            Err(err) => {
                tracing::warn!(error = %err, "long-term memory: the memory-context preamble failed to render; nothing injected");
                return None;
            }
        };
        let long_term = match prefetch_with_header(
            &self.scoped,
            &self.options,
            &header,
            query,
            history.len(),
        )
        .await
        {
            Ok(Some(found)) => {
                self.injected = found.entries;
                Some(found.context)
            }
            Ok(None) => None,
            Err(err) => {
                tracing::warn!(error = %err, "long-term memory: prefetch failed; nothing injected");
                None
            }
        };
        let short_term = self.short_term_context(history, long_term.as_deref()).await;
        match (long_term, short_term) {
            (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
            (a, b) => a.or(b),
        }
    }

    /// After a committed turn whose final reply is `reply` and whose
    /// messages end `history`: appends the turn to the dialogue buffer
    /// (durable when this returns) and starts a background extraction every
    /// `extract.batch_size` turns; then records the use of the memories
    /// injected or returned by `memory_recall` in this turn (used when
    /// `reply` refers to them, shown otherwise) in the background, off the
    /// turn's path — started after the append, so the append never waits
    /// behind it. Failures are logged. [`TurnMemory::flush`] and
    /// [`TurnMemory::finish`] wait for the background writes.
    pub async fn after_turn(&mut self, reply: &str, history: &[ChatMessage]) {
        let query = std::mem::take(&mut self.query);
        let injected = std::mem::take(&mut self.injected);
        let recalled = recalled_ids(history);
        self.tool_lines.extend(turn_tool_lines(history));
        let excess = self.tool_lines.len().saturating_sub(MAX_TOOL_LINES);
        self.tool_lines.drain(..excess);
        self.buffer_turn(&query, reply).await;
        if !injected.is_empty() || !recalled.is_empty() {
            let previous = self.feedback.take();
            let feedback = Feedback {
                scoped: self.scoped.clone(),
                session_id: self.session_id.clone(),
                query,
                reply: reply.to_owned(),
                min_overlap: self.options.reference_min_overlap,
            };
            self.feedback = Some(tokio::spawn(async move {
                if let Some(previous) = previous {
                    let _ = previous.await;
                }
                feedback.record(injected, recalled).await;
            }));
        }
    }

    /// Waits for the usage feedback written in the background.
    pub(super) async fn flush_feedback(&mut self) {
        if let Some(task) = self.feedback.take()
            && let Err(err) = task.await
        {
            tracing::warn!(error = %err, "long-term memory: the usage feedback task failed");
        }
    }
}
