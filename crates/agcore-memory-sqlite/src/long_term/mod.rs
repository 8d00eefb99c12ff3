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
//! - Flows: those of [`agcore_memory::long_term::sql`] (`SqlLongTerm` on
//!   the SQLite driver, `driver`), run to completion on those threads; this
//!   module holds SQLite's row operations and names (`conn`, `rows`), its
//!   times (`time`), its search and its set-based maintenance (`upkeep`).

mod backend;
mod conn;
mod driver;
#[cfg(feature = "testkit")]
mod exhaustive;
pub(crate) mod rows;
pub(crate) mod schema;
mod search;
mod time;
mod upkeep;

use std::path::Path;
use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::sql::SqlLongTerm;
#[cfg(feature = "testkit")]
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};

use crate::SqliteDatabase;
use crate::connection::Database;
use driver::SqliteLongTermDriver;

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
    /// The shared SQL backend on the SQLite driver (`driver`).
    sql: SqlLongTerm<SqliteLongTermDriver>,
}

impl SqliteLongTerm {
    pub(crate) fn new(db: Arc<Database>) -> Self {
        let sql = SqlLongTerm::new(SqliteLongTermDriver { db });
        Self { sql }
    }

    fn db(&self) -> &Database {
        &self.sql.driver().db
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
        self.db().path()
    }

    /// BM25 over every entry of `scope` by a scan (statistics counted from
    /// the rows, no index): the exhaustive reference that the pruned
    /// [`LongTermBackend::search`] equals (same entries and order, scores up
    /// to float rounding) and is measured against. `O(entries of the scope)`.
    ///
    /// [`LongTermBackend::search`]: agcore_memory::long_term::LongTermBackend::search
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
        self.read(move |c| exhaustive::exhaustive(c, &scope, &query, &request))
            .await
    }

    /// The row-by-row maintenance of earlier releases (every active entry
    /// loaded, aged and stored back; the shared
    /// [`flows::maintenance`](agcore_memory::long_term::sql::flows::maintenance)
    /// the other SQL drivers run): the reference the set-based
    /// [`LongTermBackend::maintenance`] is checked and measured against.
    ///
    /// [`LongTermBackend::maintenance`]: agcore_memory::long_term::LongTermBackend::maintenance
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    #[cfg(feature = "testkit")]
    #[doc(hidden)]
    pub async fn maintenance_row_by_row(
        &self,
        scope: &MemoryScope,
        rules: &agcore_memory::long_term::WeightRules,
        now: chrono::DateTime<chrono::Utc>,
        purge_before: chrono::DateTime<chrono::Utc>,
    ) -> std::result::Result<agcore_memory::long_term::MaintenanceReport, MemoryError> {
        use agcore_memory::long_term::sql::{SqlDriver, WriteIntent, flows, work};
        let (scope, rules) = (scope.clone(), *rules);
        let work = work(move |rows| {
            let scope = scope.clone();
            Box::pin(
                async move { flows::maintenance(rows, &scope, &rules, now, purge_before).await },
            )
        });
        self.sql.driver().write(WriteIntent::Other, work).await
    }

    /// Runs a write (or a read that must see the writer's state) on the writer.
    async fn run<T, F>(&self, f: F) -> std::result::Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut rusqlite::Connection) -> crate::error::Result<T> + Send + 'static,
    {
        self.db().exec(f).await
    }

    /// Runs a read on a reader connection (the writer in memory).
    async fn read<T, F>(&self, f: F) -> std::result::Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut rusqlite::Connection) -> crate::error::Result<T> + Send + 'static,
    {
        self.db().read(f).await
    }
}
