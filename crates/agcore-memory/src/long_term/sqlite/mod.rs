//! [`SqliteLongTerm`]: long-term memory in one SQLite file (feature `sqlite`).
//!
//! - Layout: the long-term memory spec's `memory` table (§3.3) with the
//!   memory-system plan's columns, an external-content FTS5 index kept in
//!   sync by triggers, `memory_history`, `memory_usage_log` and
//!   `dialogue_buffer`; versioned migrations (`PRAGMA user_version`) upgrade
//!   older files in place (see `schema`).
//! - Search: BM25 (Robertson & Zaragoza 2009; FTS5 `bm25()`'s formula) over
//!   pre-tokenised keywords (CJK text as character bigrams, as `SqliteStore`
//!   does) with the scope's own statistics, answered as an exact top-k by the
//!   threshold algorithm over an impact-ordered postings table keyed by
//!   scope (Fagin, Lotem & Naor 2003; Anh & Moffat 2006): a search reads only
//!   its scope's best postings, never another scope's rows.
//! - One connection behind a mutex, used only inside `spawn_blocking`; WAL
//!   journal for on-disk files; every write is one transaction. Use a file of
//!   its own (not a `SqliteStore` database).

mod buffer;
mod import;
mod ops;
mod rows;
mod schema;
mod search;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};

use super::backend::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    SaveOutcome, ScoredEntry, SearchRequest, UsageLogRow, UsageRecord,
};
use super::entry::{MemoryEntry, MemoryScope, MemoryUpdate, NewMemory};
use super::weights::WeightRules;
use crate::MemoryError;

/// Long-term memory in one SQLite file (feature `sqlite`). `Send + Sync`.
///
/// The spec's `memory` table (§3.3) with weight, tags, archive and usage
/// columns; an FTS5 index over pre-tokenised keywords (CJK as character
/// bigrams, as `SqliteStore` does) and an impact-ordered BM25 postings table
/// keyed by scope that answers searches as an exact pruned top-k with the
/// scope's own statistics (threshold algorithm, Fagin, Lotem & Naor 2003;
/// impact-ordered postings, Anh & Moffat 2006); `memory_history`,
/// `memory_usage_log` and `dialogue_buffer` tables; migrations via
/// `PRAGMA user_version` that upgrade older files in place; WAL; every call
/// runs on the blocking pool, each write in one `IMMEDIATE` transaction. Give
/// it a file of its own (not a `SqliteStore` database).
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, SqliteLongTerm};
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
    conn: Slot,
    /// Read-only connections of an on-disk database (WAL lets them read while
    /// the writer commits); empty in memory, where reads use `conn`.
    readers: Arc<Vec<Slot>>,
    next_reader: Arc<AtomicUsize>,
    path: Option<PathBuf>,
}

/// The schema version written by this library (`PRAGMA user_version`).
pub const SQLITE_SCHEMA_VERSION: i64 = schema::SCHEMA_VERSION;

impl SqliteLongTerm {
    /// Opens (creating if needed) the database at `path`, switches it to WAL
    /// and migrates it to [`SQLITE_SCHEMA_VERSION`] keeping every row.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the file cannot be opened, is not a
    /// SQLite database, holds another schema or a newer version, or a
    /// migration step fails (that step is rolled back).
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        let path = path.as_ref().to_path_buf();
        let at = path.clone();
        let (conn, readers) = blocking(move || {
            let mut conn = Connection::open(&at)?;
            configure(&conn, true)?;
            schema::migrate(&mut conn)?;
            let mut readers = Vec::with_capacity(READERS);
            for _ in 0..READERS {
                let reader = Connection::open_with_flags(
                    &at,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                reader.busy_timeout(Duration::from_secs(5))?;
                reader.pragma_update(None, "query_only", true)?;
                reader.set_prepared_statement_cache_capacity(64);
                readers.push(slot(reader));
            }
            Ok((conn, readers))
        })
        .await?;
        Ok(Self {
            conn: slot(conn),
            readers: Arc::new(readers),
            next_reader: Arc::new(AtomicUsize::new(0)),
            path: Some(path),
        })
    }

    /// A private in-memory database (gone when the last clone is dropped).
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when SQLite fails to start.
    pub async fn open_in_memory() -> Result<Self, MemoryError> {
        let conn = blocking(|| {
            let mut conn = Connection::open_in_memory()?;
            configure(&conn, false)?;
            schema::migrate(&mut conn)?;
            Ok(conn)
        })
        .await?;
        Ok(Self {
            conn: slot(conn),
            readers: Arc::new(Vec::new()),
            next_reader: Arc::new(AtomicUsize::new(0)),
            path: None,
        })
    }

    /// The database file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// BM25 over every entry of `scope` by a scan (statistics counted from
    /// the rows, no index): the exhaustive reference that the pruned
    /// [`LongTermBackend::search`] equals (same entries and order, scores up
    /// to float rounding) and is measured against. `O(entries of the scope)`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn exhaustive_search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.read(move |c| search::exhaustive(c, &scope, &query, &request))
            .await
    }

    /// Runs a write (or a read that must see the writer's state) on the writer.
    async fn run<T, F>(&self, f: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, MemoryError> + Send + 'static,
    {
        Self::on(Arc::clone(&self.conn), f).await
    }

    /// Runs a read on the next reader connection (the writer in memory).
    async fn read<T, F>(&self, f: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, MemoryError> + Send + 'static,
    {
        let n = self.next_reader.fetch_add(1, Ordering::Relaxed);
        let target = match self.readers.get(n % self.readers.len().max(1)) {
            Some(reader) => Arc::clone(reader),
            None => Arc::clone(&self.conn),
        };
        Self::on(target, f).await
    }

    async fn on<T, F>(conn: Slot, f: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, MemoryError> + Send + 'static,
    {
        blocking(move || {
            let mut guard = conn.lock().map_err(|_| {
                MemoryError::Storage("long-term memory: connection lock poisoned".into())
            })?;
            let conn = guard
                .as_mut()
                .ok_or_else(|| MemoryError::Storage("long-term memory: store is closed".into()))?;
            f(conn)
        })
        .await
    }
}

/// Read-only connections per on-disk database.
const READERS: usize = 2;

/// A connection behind a mutex; `None` once closed.
type Slot = Arc<Mutex<Option<Connection>>>;

fn slot(conn: Connection) -> Slot {
    Arc::new(Mutex::new(Some(conn)))
}

fn configure(conn: &Connection, on_disk: bool) -> Result<(), MemoryError> {
    conn.busy_timeout(Duration::from_secs(5))?;
    if on_disk {
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(MemoryError::Storage(format!(
                "long-term memory: could not switch to WAL mode (journal_mode is `{mode}`)"
            )));
        }
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, MemoryError> + Send + 'static,
) -> Result<T, MemoryError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| MemoryError::Storage(format!("long-term memory: blocking task failed: {e}")))?
}

#[async_trait]
impl LongTermBackend for SqliteLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError> {
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
    ) -> Result<MemoryEntry, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::update(c, &scope, id, update, reason, &rules, now))
            .await
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        let scope = scope.clone();
        self.run(move |c| ops::delete(c, &scope, id, now)).await
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| rows::load(c, &scope, id)).await
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError> {
        let (scope, key) = (scope.clone(), key.to_owned());
        self.read(move |c| ops::find_by_key(c, &scope, &key)).await
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<HistoryEntry>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| ops::history(c, &scope, id)).await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.read(move |c| search::search(c, &scope, &query, &request))
            .await
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        let (scope, request) = (scope.clone(), request.clone());
        self.read(move |c| ops::list(c, &scope, &request)).await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::record_use(c, &scope, &record, &rules, now))
            .await
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| buffer::usage_log(c, &scope, id)).await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
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
    ) -> Result<MaintenanceReport, MemoryError> {
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
    ) -> Result<DialogueTurn, MemoryError> {
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
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
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
    ) -> Result<usize, MemoryError> {
        let (scope, session) = (scope.clone(), session_id.to_owned());
        self.run(move |c| buffer::buffer_mark_applied(c, &scope, &session, up_to, now))
            .await
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        self.run(move |c| import::import_all(c, entries)).await
    }

    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        self.read(|c| buffer::scopes(c)).await
    }

    async fn close(&self) -> Result<(), MemoryError> {
        let conn = Arc::clone(&self.conn);
        blocking(move || {
            let taken = conn
                .lock()
                .map_err(|_| {
                    MemoryError::Storage("long-term memory: connection lock poisoned".into())
                })?
                .take();
            if let Some(conn) = taken {
                conn.close().map_err(|(_, e)| MemoryError::from(e))?;
            }
            Ok(())
        })
        .await
    }
}
