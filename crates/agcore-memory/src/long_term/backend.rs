//! The storage contract of long-term memory ([`LongTermBackend`]).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::changes::{MemoryUpdate, NewMemory};
use super::dedupe::{Duplicate, TermSet};
use super::entry::MemoryEntry;
pub use super::records::{
    DialogueTurn, HistoryEntry, HistoryReason, MaintenanceReport, SaveOutcome, ScoredEntry,
    UsageLogRow, UsageRecord,
};
pub use super::requests::{ArchivedFilter, ListOrder, ListRequest, SearchRequest};
use super::scope::MemoryScope;
use super::weights::WeightRules;
use crate::MemoryError;

/// Storage of long-term memories, confined per call to one [`MemoryScope`].
///
/// Every method takes the scope and touches only that scope's rows: an id of
/// another scope behaves exactly as an id that does not exist. Callers use
/// [`ScopedMemory`](super::ScopedMemory), which fixes the scope once.
/// Implementations must be `Send + Sync`; none blocks the async runtime.
/// Scopes and inputs are validated by the caller ([`ScopedMemory`](super::ScopedMemory)).
#[async_trait]
pub trait LongTermBackend: Send + Sync + std::fmt::Debug {
    /// Saves `new` (already validated) at `now`. If an entry of `scope` has the
    /// same [`content_key`](super::content_key), that entry is updated instead
    /// (new text, title, description and type; tags merged; metadata merged,
    /// new keys winning; weight the larger; un-archived).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError>;

    /// Applies `update` to entry `id` of `scope`. A content change writes the
    /// old text to the history with `reason`.
    ///
    /// # Errors
    /// [`MemoryError::NotFound`] when `scope` has no entry `id`;
    /// [`MemoryError::AlreadyExists`] when the new content equals another
    /// entry's of the scope; [`MemoryError::Storage`].
    async fn update(
        &self,
        scope: &MemoryScope,
        id: i64,
        update: MemoryUpdate,
        reason: HistoryReason,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<MemoryEntry, MemoryError>;

    /// Deletes entry `id` of `scope`, keeping its text in the history.
    /// `Ok(false)` when the scope has no such entry.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError>;

    /// Entry `id` of `scope`, `None` when absent.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError>;

    /// Entries `ids` of `scope`: one per id, in the same order (`None` when
    /// absent or in another scope; a repeated id is answered each time). A
    /// hybrid search reads its dense candidates with it, so a backend can
    /// answer in one round trip; the default calls [`get`](Self::get) per id.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        let mut entries = Vec::with_capacity(ids.len());
        for &id in ids {
            entries.push(self.get(scope, id).await?);
        }
        Ok(entries)
    }

    /// The entry of `scope` whose content has this [`content_key`](super::content_key).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError>;

    /// Previous texts of entry `id` (also after deletion), oldest first.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn history(&self, scope: &MemoryScope, id: i64)
    -> Result<Vec<HistoryEntry>, MemoryError>;

    /// BM25 search of `query` (literal text; CJK as character bigrams) over
    /// name, content and description. Best first, ties by id; a query without
    /// keywords gives no hits.
    ///
    /// # Errors
    /// [`MemoryError::RetrievalError`] or [`MemoryError::Storage`].
    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError>;

    /// The entries of `scope` passing `request`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError>;

    /// Logs `record` to the usage log and updates use counts and weights
    /// ([`WeightRules::after_use`]); returns the number of entries updated.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError>;

    /// The usage-log rows of entry `id` of `scope`, oldest first.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError>;

    /// Archives the active entries of `scope` with weight below `threshold`;
    /// returns how many.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError>;

    /// Age decay ([`WeightRules::after_age`]) of every active entry, archiving
    /// below `rules.archive_threshold`, purging applied buffer turns applied
    /// before `purge_before`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError>;

    /// The active entries of `scope` as the near-duplicate dedupe of
    /// maintenance sees them ([`TermSet`]: id, type, weight, creation time,
    /// the analyzer terms of the search text). The default lists the entries
    /// and analyzes them ([`TermSet::of`]); a backend that stores the terms
    /// should return those instead (same terms, no re-analysis).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn dedupe_terms(&self, scope: &MemoryScope) -> Result<Vec<TermSet>, MemoryError> {
        let entries = self.list(scope, &ListRequest::all()).await?;
        Ok(entries.iter().map(TermSet::of).collect())
    }

    /// Archives each near duplicate `d.superseded` of `scope` as superseded
    /// by `d.kept` ([`supersede_update`](super::supersede_update), history
    /// reason [`HistoryReason::Supersede`]); entries deleted meanwhile are
    /// skipped. Returns how many were archived. The default updates them one
    /// by one; a backend should do it in one transaction.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] (with the default, what was archived before
    /// the failure stays archived).
    async fn supersede_duplicates(
        &self,
        scope: &MemoryScope,
        duplicates: &[Duplicate],
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let mut done = 0;
        for duplicate in duplicates {
            let Some(entry) = self.get(scope, duplicate.superseded).await? else {
                continue;
            };
            let update = super::supersede_update(&entry, duplicate.kept);
            let id = duplicate.superseded;
            match self
                .update(scope, id, update, HistoryReason::Supersede, rules, now)
                .await
            {
                Ok(_) => done += 1,
                // Deleted since it was read: nothing left to supersede.
                Err(MemoryError::NotFound(_)) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(done)
    }

    /// Appends a turn to the dialogue buffer of (`scope`, `session_id`).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError>;

    /// Unapplied turns of (`scope`, `session_id`), oldest first, at most `limit`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError>;

    /// Marks the unapplied turns of (`scope`, `session_id`) with id ≤ `up_to`
    /// as applied; returns how many.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError>;

    /// Restores whole entries as they are (backup import): each goes to the
    /// scope named by its `agent_name` / `user_id` with a newly assigned id,
    /// keeping type, name, content, description, metadata, tags, weight,
    /// archive flag, use count and every timestamp. An entry whose
    /// [`content_key`](super::content_key) matches an entry already in its
    /// scope (or earlier in `entries`) is skipped: its outcome holds the
    /// existing entry with `created = false`. One outcome per input, in order;
    /// all or nothing. Inputs are validated by the caller
    /// ([`ScopedMemory::import_entries`](super::ScopedMemory::import_entries),
    /// [`LongTermMemory::import_entries`](super::LongTermMemory::import_entries)).
    ///
    /// # Errors
    /// [`MemoryError::Storage`]; nothing is written then.
    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError>;

    /// Every scope that holds entries or buffered turns (for maintenance jobs).
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError>;

    /// Flushes and releases resources; later calls fail with [`MemoryError::Storage`].
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when closing fails.
    async fn close(&self) -> Result<(), MemoryError>;
}
