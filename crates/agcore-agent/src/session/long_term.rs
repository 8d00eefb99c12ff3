//! The long-term memory steps of a turn: prefetch before, usage, buffer and
//! background extraction after.

use std::future::Future;
use std::sync::Arc;

use agcore_memory::long_term::{MemoryEntry, ScopedMemory, detect_references};
use agcore_prompt::TemplateContext;
use agcore_prompt::builtin::names;
use tokio::task::JoinHandle;

use super::AgentSession;
use crate::AgentError;
use crate::long_term::{
    ExtractionReport, LongTermRuntime, memory_context_preamble, prefetch_with_header,
    run_extraction,
};

/// Per-session long-term memory state.
#[derive(Debug, Default)]
pub(super) struct LongTermState {
    /// The user message of the running turn.
    query: String,
    /// The entries injected into the running turn.
    injected: Vec<MemoryEntry>,
    /// Turns buffered since the last extraction started.
    turns_since_extraction: usize,
    /// The extraction running in the background, if any.
    extraction: Option<JoinHandle<Result<ExtractionReport, AgentError>>>,
    /// [`AgentSession::finish`] ran: nothing is left for the drop to do.
    finished: bool,
}

impl AgentSession {
    fn long_term_scope(&self) -> Option<(&LongTermRuntime, ScopedMemory)> {
        let runtime = self.bundle.long_term.as_ref()?;
        let user = self.user_id.as_deref()?;
        match runtime.memory.scope(self.agent.name(), user) {
            Ok(scoped) => Some((runtime, scoped)),
            Err(err) => {
                tracing::warn!(error = %err, "long-term memory: invalid scope; skipped");
                None
            }
        }
    }

    /// Prefetch for the turn whose user message is `query`: the
    /// `<memory-context>` body, or `None`. A failed search is logged and
    /// injects nothing.
    pub(super) async fn long_term_before_turn(&mut self, query: &str) -> Option<String> {
        self.long_term.query = query.to_owned();
        self.long_term.injected.clear();
        let (runtime, scoped) = self.long_term_scope()?;
        let header = match memory_context_preamble(&self.bundle.prompts, runtime.options.language) {
            Ok(header) => header,
            Err(err) => {
                tracing::warn!(error = %err, "long-term memory: the memory-context preamble failed to render; nothing injected");
                return None;
            }
        };
        match prefetch_with_header(
            &scoped,
            &runtime.options,
            &header,
            query,
            self.history.len(),
        )
        .await
        {
            Ok(Some(found)) => {
                self.long_term.injected = found.entries;
                Some(found.context)
            }
            Ok(None) => None,
            Err(err) => {
                tracing::warn!(error = %err, "long-term memory: prefetch failed; nothing injected");
                None
            }
        }
    }

    /// After a committed turn: records the use of the injected memories
    /// (referenced or not by `reply`), appends the turn to the dialogue
    /// buffer and starts extraction every `batch_size` turns. Failures are
    /// logged; the turn stays successful.
    pub(super) async fn long_term_after_turn(&mut self, reply: &str) {
        let Some((runtime, scoped)) = self.long_term_scope() else {
            return;
        };
        let options = runtime.options.clone();
        let query = std::mem::take(&mut self.long_term.query);
        let mut injected = std::mem::take(&mut self.long_term.injected);
        // Entries the model recalled with the tool count as shown too.
        for id in super::recall_feedback::recalled_ids(&self.history) {
            if injected.iter().any(|e| e.id == id) {
                continue;
            }
            match scoped.get(id).await {
                Ok(Some(entry)) => injected.push(entry),
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "long-term memory: reading a recalled entry failed")
                }
            }
        }
        if !injected.is_empty() {
            let referenced = detect_references(reply, &injected, options.reference_min_overlap);
            let unreferenced: Vec<i64> = injected
                .iter()
                .map(|e| e.id)
                .filter(|id| !referenced.contains(id))
                .collect();
            for (ids, used) in [(referenced, true), (unreferenced, false)] {
                if ids.is_empty() {
                    continue;
                }
                if let Err(err) = scoped
                    .record_use(&self.session_id, &query, &ids, used)
                    .await
                {
                    tracing::warn!(error = %err, "long-term memory: recording use failed");
                }
            }
        }
        if !options.extraction {
            return;
        }
        if let Err(err) = scoped.buffer_append(&self.session_id, &query, reply).await {
            tracing::warn!(error = %err, "long-term memory: buffering the turn failed");
            return;
        }
        self.long_term.turns_since_extraction += 1;
        self.long_term.finished = false;
        if self.long_term.turns_since_extraction < options.extract.batch_size.max(1) {
            return;
        }
        if self
            .long_term
            .extraction
            .as_ref()
            .is_some_and(|h| !h.is_finished())
        {
            return;
        }
        if let Some(done) = self.long_term.extraction.take() {
            log_extraction(done.await);
        }
        self.long_term.turns_since_extraction = 0;
        self.long_term.extraction = self.extraction_job().map(tokio::spawn);
    }

    /// One extraction run over this session's unapplied dialogue buffer,
    /// ready to spawn or await; `None` without long-term memory, a user id
    /// or extraction. Its result is logged.
    fn extraction_job(
        &self,
    ) -> Option<impl Future<Output = Result<ExtractionReport, AgentError>> + Send + 'static> {
        let (runtime, scoped) = self.long_term_scope()?;
        let mut options = runtime.options.clone();
        if !options.extraction {
            return None;
        }
        if self.bundle.prompts.contains(names::MEMORY_EXTRACTION) {
            match self
                .bundle
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
            .unwrap_or_else(|| Arc::clone(&self.bundle.provider));
        let model = options
            .extraction_model
            .clone()
            .unwrap_or_else(|| self.bundle.config.llm.model.clone());
        let session_id = self.session_id.clone();
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

    /// Ends the session's memory work: waits for a running extraction, then
    /// extracts the turns buffered since (fewer than `batch_size`, which the
    /// turns alone would not have sent), and waits for the embedding queue
    /// of dense retrieval. Returns the last extraction's report. A session
    /// dropped without `finish` starts that last extraction in the
    /// background when a Tokio runtime is running, with a warning.
    ///
    /// # Errors
    /// The extraction's error (the buffer is kept for a later run).
    pub async fn finish(&mut self) -> Result<Option<ExtractionReport>, AgentError> {
        self.long_term.finished = true;
        let mut report = self.flush_memory().await?;
        if self.long_term.turns_since_extraction > 0 {
            if let Some(job) = self.extraction_job() {
                report = Some(job.await?);
            }
            self.long_term.turns_since_extraction = 0;
        }
        if let Some(index) = self
            .bundle
            .long_term
            .as_ref()
            .and_then(|rt| rt.memory.dense_index())
        {
            index.flush().await;
        }
        Ok(report)
    }

    /// The drop's share of [`AgentSession::finish`]: buffered turns that were
    /// never extracted get a background run when a Tokio runtime is there.
    pub(super) fn finish_on_drop(&mut self) {
        if self.long_term.finished || self.long_term.turns_since_extraction == 0 {
            return;
        }
        let turns = self.long_term.turns_since_extraction;
        match (tokio::runtime::Handle::try_current(), self.extraction_job()) {
            (Ok(handle), Some(job)) => {
                tracing::warn!(
                    session = %self.session_id,
                    turns,
                    "session dropped without finish(): extracting its last turns in the background"
                );
                drop(handle.spawn(job));
            }
            (Err(_), Some(_)) => tracing::warn!(
                session = %self.session_id,
                turns,
                "session dropped without finish() outside a Tokio runtime: its last turns stay \
                 in the dialogue buffer for a later extraction"
            ),
            (_, None) => {}
        }
    }

    /// Waits for the background fact extraction started by an earlier turn,
    /// if one is running or finished unobserved, and returns its result.
    /// `Ok(None)` when none was started since the last call.
    ///
    /// # Errors
    /// The extraction's error (the buffer was kept and is read again by the
    /// next run); [`AgentError::Other`] when the task panicked or was aborted.
    pub async fn flush_memory(&mut self) -> Result<Option<ExtractionReport>, AgentError> {
        let Some(handle) = self.long_term.extraction.take() else {
            return Ok(None);
        };
        match handle.await {
            Ok(result) => result.map(Some),
            Err(err) => Err(AgentError::Other(format!(
                "the fact extraction task failed: {err}"
            ))),
        }
    }
}

fn log_extraction(joined: Result<Result<ExtractionReport, AgentError>, tokio::task::JoinError>) {
    if let Err(err) = joined {
        tracing::warn!(error = %err, "long-term memory: the extraction task failed");
    }
}
