//! [`SqliteLongTermDriver`]: the [`SqlDriver`] of SQLite — every write one
//! `IMMEDIATE` transaction on the database's writer thread, reads on a
//! reader connection. The shared flows' futures never wait on I/O here
//! (rusqlite is synchronous), so each runs to completion with
//! [`block_on`] inside the job given to the thread. Maintenance and the
//! dedupe view are SQLite's own set-based statements (`upkeep`).

use std::path::Path;
use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::sql::{Access, FileDriver, SqlDriver, Work, WriteIntent};
use agcore_memory::long_term::{
    MaintenanceReport, MemoryScope, ScoredEntry, SearchRequest, TermSet, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use futures::executor::block_on;
use rusqlite::Connection;

use super::conn::SqliteRows;
use super::{search, upkeep};
use crate::SqliteDatabase;
use crate::connection::Database;
use crate::error::{Result, SqliteError};

/// The SQLite driver of [`SqliteLongTerm`](super::SqliteLongTerm): the
/// database's writer thread and reader connections. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SqliteLongTermDriver {
    pub(crate) db: Arc<Database>,
}

/// Runs `f` in one `IMMEDIATE` transaction on `conn`: committed when it
/// succeeds, rolled back when it or the commit fails.
pub(super) fn in_transaction<T>(
    conn: &mut Connection,
    f: impl FnOnce(&mut Connection) -> Result<T>,
) -> Result<T> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let outcome = f(conn).and_then(|value| {
        conn.execute_batch("COMMIT")?;
        Ok(value)
    });
    if outcome.is_err() && !conn.is_autocommit() {
        // As rusqlite's `Transaction` on drop: the rollback's own error is not reported.
        let _ = conn.execute_batch("ROLLBACK");
    }
    outcome
}

/// Runs `work` on the rows of `conn`.
fn on<T>(conn: &mut Connection, work: &Work<SqliteError, T>) -> Result<T> {
    block_on(work(&mut SqliteRows::new(conn)))
}

#[async_trait]
impl SqlDriver for SqliteLongTermDriver {
    type Error = SqliteError;

    async fn write<T: Send + 'static>(
        &self,
        _intent: WriteIntent<'_>,
        work: Work<SqliteError, T>,
    ) -> std::result::Result<T, MemoryError> {
        self.db
            .exec(move |conn| in_transaction(conn, |conn| on(conn, &work)))
            .await
    }

    /// Reads on a reader connection, updates and inserts on the writer
    /// (one statement each, never run again: the writer is the only one).
    async fn run<T: Send + 'static>(
        &self,
        access: Access,
        work: Work<SqliteError, T>,
    ) -> std::result::Result<T, MemoryError> {
        match access {
            Access::Read => self.db.read(move |conn| on(conn, &work)).await,
            _ => self.db.exec(move |conn| on(conn, &work)).await,
        }
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> std::result::Result<Vec<ScoredEntry>, MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.db
            .read(move |c| search::search(c, &scope, &query, &request))
            .await
    }

    async fn close(&self) -> std::result::Result<(), MemoryError> {
        self.db.close().await
    }

    /// Set-based: a few statements for the whole scope (`upkeep`).
    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> std::result::Result<MaintenanceReport, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.db
            .exec(move |c| upkeep::maintenance(c, &scope, &rules, now, purge_before))
            .await
    }

    /// From the stored `terms` column: no entry decoded or re-analyzed.
    async fn dedupe_terms(
        &self,
        scope: &MemoryScope,
    ) -> std::result::Result<Vec<TermSet>, MemoryError> {
        let scope = scope.clone();
        self.db.read(move |c| upkeep::dedupe_terms(c, &scope)).await
    }
}

#[async_trait]
impl FileDriver for SqliteLongTermDriver {
    /// As [`SqliteDatabase::open`].
    async fn open(path: &Path) -> std::result::Result<Self, MemoryError> {
        Ok(SqliteDatabase::open(path).await?.long_term_driver())
    }

    /// As [`SqliteDatabase::open_in_memory`].
    async fn open_in_memory() -> std::result::Result<Self, MemoryError> {
        Ok(SqliteDatabase::open_in_memory().await?.long_term_driver())
    }

    fn path(&self) -> Option<&Path> {
        self.db.path()
    }
}
