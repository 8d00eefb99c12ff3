//! [`ScopedMemory`]: every long-term memory operation, confined to one scope.

use std::sync::Arc;

mod buffer;
mod import;
mod usage;

pub use import::import_scopes;

use super::normalize::now;

use super::apply::validate_update;
use super::backend::{
    HistoryEntry, HistoryReason, ListRequest, LongTermBackend, SaveOutcome, ScoredEntry,
    SearchRequest,
};
use super::changes::{MemoryUpdate, NewMemory};
use super::dense_index::LongTermDense;
use super::entry::MemoryEntry;
use super::limits::{clip_query, validate_fields};
use super::maintain::Upkeep;
use super::normalize::{content_key, prepare_new, validate_content, validate_weight};
use super::scope::MemoryScope;
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
    upkeep: Upkeep,
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
            .and_then(|_| validate_content(&entry.content))
            .and_then(|()| validate_weight(entry.weight))
            .and_then(|()| {
                validate_fields(
                    Some(&entry.name),
                    Some(&entry.description),
                    Some(&entry.tags),
                    Some(&entry.metadata),
                )
            })
            .map_err(|e| MemoryError::InvalidInput(format!("entry {}: {e}", n + 1)))?;
    }
    Ok(())
}

impl ScopedMemory {
    pub(crate) fn new(
        backend: Arc<dyn LongTermBackend>,
        scope: MemoryScope,
        rules: WeightRules,
        upkeep: Upkeep,
        dense: Option<LongTermDense>,
    ) -> Self {
        Self {
            backend,
            scope,
            rules,
            upkeep,
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

    /// Saves a memory (`docs/memory.md`, *Saving, duplicates and history*).
    /// When the scope already holds the same
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

    /// Changes entry `id` (`docs/memory.md`, *Saving, duplicates and
    /// history*); a content change keeps the old
    /// text in the history.
    ///
    /// # Errors
    /// [`MemoryError::NotFound`] when this scope has no entry `id`;
    /// [`MemoryError::AlreadyExists`] when the new content is another entry's;
    /// [`MemoryError::InvalidInput`]; [`MemoryError::Storage`].
    pub async fn update(&self, id: i64, update: MemoryUpdate) -> Result<MemoryEntry, MemoryError> {
        validate_update(&update)?;
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

    /// Entry `id` of this scope.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn get(&self, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        self.backend.get(&self.scope, id).await
    }

    /// Entries `ids` of this scope, one per id in order (`None` when absent).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn get_many(&self, ids: &[i64]) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        self.backend.get_many(&self.scope, ids).await
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

    /// The top-`limit` active memories for `query` (`docs/memory.md`,
    /// *Retrieval*): BM25,
    /// fused with dense similarity when the memory has a dense index
    /// ([`LongTermMemory::with_dense`](super::LongTermMemory::with_dense)).
    ///
    /// # Errors
    /// [`MemoryError::RetrievalError`]; [`MemoryError::Storage`].
    pub async fn search(&self, query: &str, limit: usize) -> Result<Vec<ScoredEntry>, MemoryError> {
        self.search_with(query, &SearchRequest::top_k(limit)).await
    }

    /// Search with a type filter and archived entries on request. A query
    /// over [`MAX_QUERY_BYTES`](super::MAX_QUERY_BYTES) is cut to that
    /// length (at a character boundary) before it is used.
    ///
    /// # Errors
    /// As [`ScopedMemory::search`].
    pub async fn search_with(
        &self,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        let query = clip_query(query);
        if self.dense.is_none() {
            return self.backend.search(&self.scope, query, request).await;
        }
        self.search_ranked(query, request).await
    }

    /// The entries passing `request`.
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

    pub(crate) fn backend_ref(&self) -> &Arc<dyn LongTermBackend> {
        &self.backend
    }
}
