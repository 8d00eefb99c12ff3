//! The dialogue-buffer and extraction steps of [`TurnMemory`]: appending
//! each turn, starting a background fact extraction every
//! `extract.batch_size` turns, and the last extraction on
//! [`TurnMemory::finish`] or drop.

use std::future::Future;
use std::sync::Arc;

use agcore_prompt::TemplateContext;
use agcore_prompt::builtin::names;

use super::extract::{ExtractionReport, run_extraction};
use super::memory::TurnMemory;
use agcore_memory::MemoryError;

impl TurnMemory {
    /// The dialogue-buffer step of [`TurnMemory::after_turn`]: the append,
    /// the short-term trim and the extraction trigger.
    pub(super) async fn buffer_turn(&mut self, query: &str, reply: &str) {
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
        options.tool_lines.clone_from(&self.tool_lines);
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
