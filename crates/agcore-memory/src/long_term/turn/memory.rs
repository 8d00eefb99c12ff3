//! [`TurnMemory`]: the one owner of a conversation's long-term memory steps.

use std::future::Future;
use std::sync::Arc;

use agcore_llm::LlmProvider;
use agcore_prompt::builtin::names;
use agcore_prompt::{PromptTemplateRegistry, TemplateContext};
use agcore_types::ChatMessage;
use tokio::task::JoinHandle;

use super::LongTermOptions;
use super::extract::{ExtractionReport, run_extraction};
use super::feedback::{Feedback, recalled_ids};
use super::prefetch::prefetch_with_header;
use super::prompt::memory_context_preamble;
use super::short_term::ShortTerm;
use crate::MemoryError;
use crate::long_term::{LongTermMemory, MemoryEntry, ScopedMemory};

type Extraction = JoinHandle<Result<ExtractionReport, MemoryError>>;

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
    memory: LongTermMemory,
    pub(super) options: LongTermOptions,
    pub(super) session_id: String,
    model: ExtractionModel,
    pub(super) prompts: Arc<PromptTemplateRegistry>,
    /// The user message of the running turn.
    query: String,
    /// The entries injected into the running turn.
    injected: Vec<MemoryEntry>,
    /// Turns buffered since the last extraction started.
    turns_since_extraction: usize,
    /// The extraction running in the background, if any.
    extraction: Option<Extraction>,
    /// The usage feedback of the last turn, written in the background (each
    /// turn's task waits for the previous one, so they apply in order).
    feedback: Option<JoinHandle<()>>,
    /// [`TurnMemory::finish`] ran after the last buffered turn.
    finished: bool,
    /// The conversation's recent turns (short-term memory).
    pub(super) short_term: ShortTerm,
}

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
        }
    }

    /// The scope this conversation reads and writes.
    pub fn scoped(&self) -> &ScopedMemory {
        &self.scoped
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

    /// The dialogue-buffer step of [`TurnMemory::after_turn`]: the append,
    /// the short-term trim and the extraction trigger.
    async fn buffer_turn(&mut self, query: &str, reply: &str) {
        if !self.options.extraction && self.options.inject.short_term_count == 0 {
            return;
        }
        if self.options.inject.short_term_count > 0 || !self.options.extraction {
            // Only injection and the trim without extraction read it.
            self.load_short_term().await;
        }
        let turn = match self
            .scoped
            .buffer_append(&self.session_id, query, reply)
            .await
        {
            Ok(turn) => turn,
            Err(err) => {
                tracing::warn!(error = %err, "long-term memory: buffering the turn failed");
                return;
            }
        };
        let max_items = self.options.short_term_items.max(1);
        let pushed_out = self.short_term.record(turn, max_items);
        if !self.options.extraction {
            // Nothing promotes these turns: the oldest leave the buffer.
            if let Some(last) = pushed_out.last()
                && let Err(err) = self
                    .scoped
                    .buffer_mark_applied(&self.session_id, last.id)
                    .await
            {
                tracing::warn!(error = %err, "long-term memory: trimming the short-term turns failed");
            }
            return;
        }
        self.turns_since_extraction += 1;
        self.finished = false;
        let due = self.options.extract.batch_size.max(1).min(max_items);
        if self.turns_since_extraction < due {
            return;
        }
        if self.extraction.as_ref().is_some_and(|h| !h.is_finished()) {
            return;
        }
        if let Some(done) = self.extraction.take()
            && let Err(err) = done.await
        {
            tracing::warn!(error = %err, "long-term memory: the extraction task failed");
        }
        self.turns_since_extraction = 0;
        self.extraction = self.extraction_job().map(tokio::spawn);
    }

    /// Waits for the usage feedback written in the background.
    async fn flush_feedback(&mut self) {
        if let Some(task) = self.feedback.take()
            && let Err(err) = task.await
        {
            tracing::warn!(error = %err, "long-term memory: the usage feedback task failed");
        }
    }

    /// One extraction run over this conversation's unapplied dialogue
    /// buffer, ready to spawn or await; `None` when extraction is off or its
    /// prompt fails to render (the buffer is kept). Its result is logged.
    fn extraction_job(
        &self,
    ) -> Option<impl Future<Output = Result<ExtractionReport, MemoryError>> + Send + 'static> {
        let mut options = self.options.clone();
        if !options.extraction {
            return None;
        }
        if self.prompts.contains(names::MEMORY_EXTRACTION) {
            match self
                .prompts
                .render(names::MEMORY_EXTRACTION, &TemplateContext::new())
            {
                Ok(text) => options.extraction_instructions = Some(text),
                Err(err) => {
                    tracing::warn!(error = %err, "long-term memory: the memory.extraction prompt failed to render; extraction skipped, the buffer is kept");
                    return None;
                }
            }
        }
        let provider = options
            .extraction_provider
            .clone()
            .unwrap_or_else(|| Arc::clone(&self.model.provider));
        let model = options
            .extraction_model
            .clone()
            .unwrap_or_else(|| self.model.model.clone());
        let (scoped, session_id) = (self.scoped.clone(), self.session_id.clone());
        Some(async move {
            let result = run_extraction(scoped, session_id, provider, model, options).await;
            match &result {
                Ok(report) => tracing::debug!(?report, "long-term memory: extraction done"),
                Err(err) => tracing::warn!(
                    error = %err,
                    "long-term memory: extraction failed; the buffer is kept for a later run"
                ),
            }
            result
        })
    }

    /// Waits for the usage feedback of earlier turns and for the background
    /// extraction started by an earlier turn, if one is running or finished
    /// unobserved, and returns its report;
    /// `Ok(None)` when none was started since the last call.
    ///
    /// # Errors
    /// The extraction's error (the buffer was kept and is read again by the
    /// next run); [`MemoryError::Storage`] when the task panicked or was
    /// aborted.
    pub async fn flush(&mut self) -> Result<Option<ExtractionReport>, MemoryError> {
        self.flush_feedback().await;
        let Some(handle) = self.extraction.take() else {
            return Ok(None);
        };
        match handle.await {
            Ok(result) => result.map(Some),
            Err(err) => Err(MemoryError::Storage(format!(
                "the fact extraction task failed: {err}"
            ))),
        }
    }

    /// Ends the conversation's memory work: waits for a running extraction,
    /// then extracts the turns buffered since (fewer than `batch_size`,
    /// which the turns alone would not have sent), and waits for the
    /// embedding queue of dense retrieval. Returns the last extraction's
    /// report. The conversation may go on afterwards.
    ///
    /// # Errors
    /// The extraction's error (the buffer is kept for a later run).
    pub async fn finish(&mut self) -> Result<Option<ExtractionReport>, MemoryError> {
        self.finished = true;
        let mut report = self.flush().await?;
        if self.turns_since_extraction > 0 {
            if let Some(job) = self.extraction_job() {
                report = Some(job.await?);
            }
            self.turns_since_extraction = 0;
        }
        if let Some(index) = self.memory.dense_index() {
            index.flush().await;
        }
        Ok(report)
    }
}

impl Drop for TurnMemory {
    /// Buffered turns that were never extracted get a background run when a
    /// Tokio runtime is there; otherwise they stay in the dialogue buffer
    /// for a later extraction. Either way with a warning.
    fn drop(&mut self) {
        if self.finished || self.turns_since_extraction == 0 {
            return;
        }
        let turns = self.turns_since_extraction;
        match (tokio::runtime::Handle::try_current(), self.extraction_job()) {
            (Ok(handle), Some(job)) => {
                tracing::warn!(
                    session = %self.session_id,
                    turns,
                    "conversation memory dropped without finish() (session ended or agent switched): extracting its last turns in the background"
                );
                drop(handle.spawn(job));
            }
            (Err(_), Some(_)) => tracing::warn!(
                session = %self.session_id,
                turns,
                "conversation memory dropped without finish() outside a Tokio runtime: its last \
                 turns stay in the dialogue buffer for a later extraction"
            ),
            (_, None) => {}
        }
    }
}
