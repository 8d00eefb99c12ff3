//! [`SqliteLongTermDriver`]: the [`SqlDriver`] of SQLite — every write one
//! `IMMEDIATE` transaction on the database's writer thread, reads on a
//! reader connection. The shared flows' futures never wait on I/O here
//! (rusqlite is synchronous), so each runs to completion with
//! [`block_on`] inside the job given to the thread.

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::sql::{Access, SqlDriver, Work, WriteIntent};
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use async_trait::async_trait;
use futures::executor::block_on;
use rusqlite::Connection;

use super::conn::SqliteRows;
use super::search;
use crate::connection::Database;
use crate::error::{Result, SqliteError};

/// The SQLite driver of [`SqliteLongTerm`](super::SqliteLongTerm): the
/// database's writer thread and reader connections.
#[derive(Debug, Clone)]
pub(crate) struct SqliteLongTermDriver {
    pub(super) db: Arc<Database>,
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
}
