//! [`SqliteLongTerm`]: long-term memory in a SQLite database file.
//!
//! - Layout: the `memory` table (see `docs/memory.md`, *Tables*) with the
//!   weight, tag, archive and usage columns, `memory_history`, `memory_usage_log` and
//!   `dialogue_buffer`; the `long_term` schema component (`schema.rs`) upgrades
//!   files of earlier releases in place.
//! - Search: BM25 (Robertson & Zaragoza 2009; FTS5 `bm25()`'s formula) over
//!   pre-tokenised keywords (CJK text as character bigrams, as `SqliteStore`
//!   does) with the scope's own statistics, answered as an exact top-k by the
//!   threshold algorithm over the shared impact-ordered postings table keyed by
//!   scope (Fagin, Lotem & Naor 2003; Anh & Moffat 2006): a search reads only
//!   its scope's best postings, never another scope's rows.
//! - Connections: the database's one writer thread (every write one
//!   `IMMEDIATE` transaction) and its reader threads (WAL), shared with the
//!   [`SqliteStore`](crate::SqliteStore) of the same file.

mod buffer;
mod import;
mod ops;
pub(crate) mod rows;
pub(crate) mod schema;
mod search;

use std::path::Path;
use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, ScoredEntry, SearchRequest,
    UsageLogRow, UsageRecord, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::SqliteDatabase;
use crate::connection::Database;

/// Long-term memory in a SQLite database. `Send + Sync`, cheap to clone.
///
/// The `memory` table (`docs/memory.md`, *Tables*) with weight, tags, archive and usage
/// columns; an impact-ordered BM25 postings table keyed by scope that
/// answers searches as an exact pruned top-k with the scope's own statistics
/// (threshold algorithm, Fagin, Lotem & Naor 2003; impact-ordered postings,
/// Anh & Moffat 2006); `memory_history`, `memory_usage_log` and
/// `dialogue_buffer` tables; schema migrations that upgrade files of earlier
/// releases in place; WAL. It shares its database — file, connections and
/// writer thread — with the [`SqliteStore`](crate::SqliteStore) of the same
/// [`SqliteDatabase`].
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};
/// use agcore_memory_sqlite::SqliteLongTerm;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_memory::MemoryError> {
/// let memory = LongTermMemory::new(SqliteLongTerm::open_in_memory().await?);
/// let alice = memory.scope("assistant", "alice")?;
/// alice.save(NewMemory::new(MemoryType::User, "语言", "用户喜欢用中文交流")).await?;
/// assert_eq!(alice.search("中文", 5).await?.len(), 1);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct SqliteLongTerm {
    db: Arc<Database>,
}

impl SqliteLongTerm {
    pub(crate) fn new(db: Arc<Database>) -> Self {
        Self { db }
    }

    /// Opens (creating if needed) the database at `path` with default
    /// options and migrates it, keeping every row.
    ///
    /// # Errors
    /// As [`SqliteDatabase::open`].
    pub async fn open(path: impl AsRef<Path>) -> std::result::Result<Self, MemoryError> {
        Ok(SqliteDatabase::open(path).await?.long_term())
    }

    /// A private in-memory database (gone when the last handle is dropped).
    ///
    /// # Errors
    /// As [`SqliteDatabase::open_in_memory`].
    pub async fn open_in_memory() -> std::result::Result<Self, MemoryError> {
        Ok(SqliteDatabase::open_in_memory().await?.long_term())
    }

    /// The database file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.db.path()
    }

    /// BM25 over every entry of `scope` by a scan (statistics counted from
    /// the rows, no index): the exhaustive reference that the pruned
    /// [`LongTermBackend::search`] equals (same entries and order, scores up
    /// to float rounding) and is measured against. `O(entries of the scope)`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    #[cfg(feature = "testkit")]
    #[doc(hidden)]
    pub async fn exhaustive_search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> std::result::Result<Vec<ScoredEntry>, MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.read(move |c| search::exhaustive(c, &scope, &query, &request))
            .await
    }

    /// Runs a write (or a read that must see the writer's state) on the writer.
    async fn run<T, F>(&self, f: F) -> std::result::Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut rusqlite::Connection) -> crate::error::Result<T> + Send + 'static,
    {
        self.db.exec(f).await
    }

    /// Runs a read on a reader connection (the writer in memory).
    async fn read<T, F>(&self, f: F) -> std::result::Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut rusqlite::Connection) -> crate::error::Result<T> + Send + 'static,
    {
        self.db.read(f).await
    }
}

#[async_trait]
impl LongTermBackend for SqliteLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<SaveOutcome, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::save(c, &scope, new, &rules, now))
            .await
    }

    async fn update(
        &self,
        scope: &MemoryScope,
        id: i64,
        update: MemoryUpdate,
        reason: HistoryReason,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<MemoryEntry, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::update(c, &scope, id, update, reason, &rules, now))
            .await
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> std::result::Result<bool, MemoryError> {
        let scope = scope.clone();
        self.run(move |c| ops::delete(c, &scope, id, now)).await
    }

    async fn get(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> std::result::Result<Option<MemoryEntry>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| rows::load(c, &scope, id)).await
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> std::result::Result<Option<MemoryEntry>, MemoryError> {
        let (scope, key) = (scope.clone(), key.to_owned());
        self.read(move |c| ops::find_by_key(c, &scope, &key)).await
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> std::result::Result<Vec<HistoryEntry>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| ops::history(c, &scope, id)).await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> std::result::Result<Vec<ScoredEntry>, MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.read(move |c| search::search(c, &scope, &query, &request))
            .await
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> std::result::Result<Vec<MemoryEntry>, MemoryError> {
        let (scope, request) = (scope.clone(), request.clone());
        self.read(move |c| ops::list(c, &scope, &request)).await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::record_use(c, &scope, &record, &rules, now))
            .await
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> std::result::Result<Vec<UsageLogRow>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| buffer::usage_log(c, &scope, id)).await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let scope = scope.clone();
        self.run(move |c| ops::archive_below(c, &scope, threshold, now))
            .await
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> std::result::Result<MaintenanceReport, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::maintenance(c, &scope, &rules, now, purge_before))
            .await
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> std::result::Result<DialogueTurn, MemoryError> {
        let (scope, session, user, reply) = (
            scope.clone(),
            session_id.to_owned(),
            user_query.to_owned(),
            assistant_response.to_owned(),
        );
        self.run(move |c| buffer::buffer_append(c, &scope, &session, &user, &reply, now))
            .await
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> std::result::Result<Vec<DialogueTurn>, MemoryError> {
        let (scope, session) = (scope.clone(), session_id.to_owned());
        self.read(move |c| buffer::buffer_pending(c, &scope, &session, limit))
            .await
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let (scope, session) = (scope.clone(), session_id.to_owned());
        self.run(move |c| buffer::buffer_mark_applied(c, &scope, &session, up_to, now))
            .await
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> std::result::Result<Vec<SaveOutcome>, MemoryError> {
        self.run(move |c| import::import_all(c, entries)).await
    }

    async fn scopes(&self) -> std::result::Result<Vec<MemoryScope>, MemoryError> {
        self.read(|c| buffer::scopes(c)).await
    }

    async fn close(&self) -> std::result::Result<(), MemoryError> {
        self.db.close().await
    }
}
