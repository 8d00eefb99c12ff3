//! [`ScopedMemory`]: every long-term memory operation, confined to one scope.

use std::sync::Arc;

use super::normalize::now;

use super::backend::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    SaveOutcome, ScoredEntry, SearchRequest, UsageLogRow, UsageRecord,
};
use super::dense::LongTermDense;
use super::entry::{MemoryEntry, MemoryScope, MemoryUpdate, NewMemory};
use super::normalize::{content_key, prepare_new, validate_content, validate_weight};
use super::weights::WeightRules;
use crate::MemoryError;

/// Longest session id, in bytes.
pub const MAX_SESSION_BYTES: usize = 256;

/// A handle on the memories of one (agent, user) scope, from
/// [`LongTermMemory::scope`](super::LongTermMemory::scope).
///
/// The scope is fixed at creation and passed to every backend call, where it
/// is part of every SQL `WHERE` clause and every in-memory lookup: an id of
/// another scope behaves as an id that does not exist (`get` → `None`,
/// `update` → [`MemoryError::NotFound`], `delete` → `false`, ignored by
/// `record_use`). Cheap to clone; `Send + Sync`.
#[derive(Debug, Clone)]
pub struct ScopedMemory {
    backend: Arc<dyn LongTermBackend>,
    scope: MemoryScope,
    rules: WeightRules,
    buffer_retention: chrono::Duration,
    dense: Option<LongTermDense>,
}

fn validate_session(session_id: &str) -> Result<(), MemoryError> {
    if session_id.trim().is_empty() || session_id.len() > MAX_SESSION_BYTES {
        return Err(MemoryError::InvalidInput(format!(
            "session id must be 1–{MAX_SESSION_BYTES} bytes and not blank"
        )));
    }
    Ok(())
}

/// Checks entries to import: valid scope, content and weight.
pub(crate) fn validate_import(entries: &[MemoryEntry]) -> Result<(), MemoryError> {
    for (n, entry) in entries.iter().enumerate() {
        entry
            .scope()
            .validate()
            .and_then(|()| validate_content(&entry.content))
            .and_then(|()| validate_weight(entry.weight))
            .map_err(|e| MemoryError::InvalidInput(format!("entry {}: {e}", n + 1)))?;
    }
    Ok(())
}

impl ScopedMemory {
    pub(crate) fn new(
        backend: Arc<dyn LongTermBackend>,
        scope: MemoryScope,
        rules: WeightRules,
        buffer_retention: chrono::Duration,
        dense: Option<LongTermDense>,
    ) -> Self {
        Self {
            backend,
            scope,
            rules,
            buffer_retention,
            dense,
        }
    }

    /// The dense side, when configured.
    pub(crate) fn dense(&self) -> Option<&LongTermDense> {
        self.dense.as_ref()
    }

    /// The scope this handle is confined to.
    pub fn scope(&self) -> &MemoryScope {
        &self.scope
    }

    /// The weight rules in use.
    pub fn rules(&self) -> &WeightRules {
        &self.rules
    }

    /// Saves a memory (spec §4.1 `save`). When the scope already holds the same
    /// text ([`content_key`](super::content_key): trimmed, whitespace
    /// collapsed, case-folded) that entry is updated instead (`created = false`).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for empty or oversized content or a
    /// non-finite weight; [`MemoryError::Storage`].
    pub async fn save(&self, new: NewMemory) -> Result<SaveOutcome, MemoryError> {
        let new = prepare_new(new)?;
        let outcome = self
            .backend
            .save(&self.scope, new, &self.rules, now())
            .await?;
        self.embed_entry(&outcome.entry).await;
        Ok(outcome)
    }

    /// Changes entry `id` (spec §4.1 `update`); a content change keeps the old
    /// text in the history.
    ///
    /// # Errors
    /// [`MemoryError::NotFound`] when this scope has no entry `id`;
    /// [`MemoryError::AlreadyExists`] when the new content is another entry's;
    /// [`MemoryError::InvalidInput`]; [`MemoryError::Storage`].
    pub async fn update(&self, id: i64, update: MemoryUpdate) -> Result<MemoryEntry, MemoryError> {
        let entry = self
            .backend
            .update(
                &self.scope,
                id,
                update,
                HistoryReason::Update,
                &self.rules,
                now(),
            )
            .await?;
        self.embed_entry(&entry).await;
        Ok(entry)
    }

    /// Replaces the text of entry `id` with `new_content`, keeping the old text
    /// in the history with reason [`HistoryReason::Supersede`].
    ///
    /// # Errors
    /// As [`ScopedMemory::update`].
    pub async fn supersede(
        &self,
        id: i64,
        new_content: impl Into<String>,
    ) -> Result<MemoryEntry, MemoryError> {
        let content = new_content.into();
        validate_content(&content)?;
        let update = MemoryUpdate::new().content(content);
        let entry = self
            .backend
            .update(
                &self.scope,
                id,
                update,
                HistoryReason::Supersede,
                &self.rules,
                now(),
            )
            .await?;
        self.embed_entry(&entry).await;
        Ok(entry)
    }

    /// Deletes entry `id` (its text stays in the history); `false` when this
    /// scope has no such entry.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn delete(&self, id: i64) -> Result<bool, MemoryError> {
        let deleted = self.backend.delete(&self.scope, id, now()).await?;
        if deleted {
            self.unembed(id).await?;
        }
        Ok(deleted)
    }

    /// Entry `id` of this scope (spec §4.1 `getById`).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn get(&self, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        self.backend.get(&self.scope, id).await
    }

    /// The entry whose text has the same [`content_key`](super::content_key) as `content`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn find_by_content(&self, content: &str) -> Result<Option<MemoryEntry>, MemoryError> {
        self.backend
            .find_by_key(&self.scope, &content_key(content))
            .await
    }

    /// Previous texts of entry `id`, oldest first (kept after deletion).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn history(&self, id: i64) -> Result<Vec<HistoryEntry>, MemoryError> {
        self.backend.history(&self.scope, id).await
    }

    /// The top-`limit` active memories for `query` (spec §4.1 `search`): BM25,
    /// fused with dense similarity when the memory has a dense index
    /// ([`LongTermMemory::with_dense`](super::LongTermMemory::with_dense)).
    ///
    /// # Errors
    /// [`MemoryError::RetrievalError`]; [`MemoryError::Storage`].
    pub async fn search(&self, query: &str, limit: usize) -> Result<Vec<ScoredEntry>, MemoryError> {
        self.search_with(query, &SearchRequest::top_k(limit)).await
    }

    /// Search with a type filter and archived entries on request.
    ///
    /// # Errors
    /// As [`ScopedMemory::search`].
    pub async fn search_with(
        &self,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        if self.dense.is_none() {
            return self.backend.search(&self.scope, query, request).await;
        }
        self.search_ranked(query, request).await
    }

    /// The entries passing `request` (spec §4.1 `list`).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn list(&self, request: &ListRequest) -> Result<Vec<MemoryEntry>, MemoryError> {
        self.backend.list(&self.scope, request).await
    }

    /// Core memories: active, weight ≥ `rules.core_threshold`, heaviest first.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn core(&self) -> Result<Vec<MemoryEntry>, MemoryError> {
        self.list(&ListRequest::core(self.rules.core_threshold))
            .await
    }

    /// Archived memories, most recently updated first.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn archived(&self) -> Result<Vec<MemoryEntry>, MemoryError> {
        self.list(&ListRequest::archived_only()).await
    }

    /// Records that `ids` were used in `session_id` for `query`: one usage-log
    /// row each, use count +1, weight raised when `referenced`, decayed
    /// otherwise ([`WeightRules::after_use`]). Ids of other scopes are
    /// ignored; returns how many entries were updated.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn record_use(
        &self,
        session_id: &str,
        query: &str,
        ids: &[i64],
        referenced: bool,
    ) -> Result<usize, MemoryError> {
        validate_session(session_id)?;
        let record = UsageRecord::new(session_id, query, ids.to_vec(), referenced);
        self.backend
            .record_use(&self.scope, record, &self.rules, now())
            .await
    }

    /// Usage-log rows of entry `id`, oldest first.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn usage_log(&self, id: i64) -> Result<Vec<UsageLogRow>, MemoryError> {
        self.backend.usage_log(&self.scope, id).await
    }

    /// Archives active entries with weight below `threshold`; returns how many.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a non-finite threshold; [`MemoryError::Storage`].
    pub async fn archive_below(&self, threshold: f64) -> Result<usize, MemoryError> {
        if !threshold.is_finite() {
            return Err(MemoryError::InvalidInput(format!(
                "archive threshold must be finite, got {threshold}"
            )));
        }
        self.backend
            .archive_below(&self.scope, threshold, now())
            .await
    }

    /// Restores an archived entry; `NotFound` as [`ScopedMemory::update`].
    ///
    /// # Errors
    /// As [`ScopedMemory::update`].
    pub async fn restore(&self, id: i64) -> Result<MemoryEntry, MemoryError> {
        self.update(id, MemoryUpdate::new().archived(false)).await
    }

    /// Maintenance: age decay, archiving below `rules.archive_threshold`,
    /// purge of applied buffer turns older than the retention.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn maintenance(&self) -> Result<MaintenanceReport, MemoryError> {
        let now = now();
        self.backend
            .maintenance(&self.scope, &self.rules, now, now - self.buffer_retention)
            .await
    }

    /// Appends a turn to the dialogue buffer of `session_id`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn buffer_append(
        &self,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
    ) -> Result<DialogueTurn, MemoryError> {
        validate_session(session_id)?;
        self.backend
            .buffer_append(
                &self.scope,
                session_id,
                user_query,
                assistant_response,
                now(),
            )
            .await
    }

    /// Unapplied turns of `session_id`, oldest first, at most `limit`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn buffer_pending(
        &self,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        validate_session(session_id)?;
        self.backend
            .buffer_pending(&self.scope, session_id, limit)
            .await
    }

    /// Marks the turns of `session_id` up to id `up_to` as applied (kept
    /// until then, so a failed extraction is retried).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn buffer_mark_applied(
        &self,
        session_id: &str,
        up_to: i64,
    ) -> Result<usize, MemoryError> {
        validate_session(session_id)?;
        self.backend
            .buffer_mark_applied(&self.scope, session_id, up_to, now())
            .await
    }

    /// Restores whole entries into this scope (backup import): each entry's
    /// `agent_name` / `user_id` are replaced by this scope's, its id is newly
    /// assigned, every other field (timestamps, weight, archive flag, use
    /// count, metadata, tags) is kept. Entries whose text is already in the
    /// scope are skipped (`created = false`, the stored entry returned).
    /// Everything is checked before anything is written; then all or nothing.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the position of an entry with
    /// empty or oversized content or a non-finite weight (nothing written);
    /// [`MemoryError::Storage`].
    pub async fn import_entries(
        &self,
        mut entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        for entry in &mut entries {
            entry.agent_name.clone_from(&self.scope.agent);
            entry.user_id.clone_from(&self.scope.user);
        }
        validate_import(&entries)?;
        let outcomes = self.backend.import_entries(entries).await?;
        self.embed_outcomes(&outcomes).await;
        Ok(outcomes)
    }

    pub(crate) fn backend_ref(&self) -> &Arc<dyn LongTermBackend> {
        &self.backend
    }
}
