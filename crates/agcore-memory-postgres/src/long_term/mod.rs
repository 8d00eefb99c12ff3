//! [`PostgresLongTerm`]: long-term memory (per agent and user: four memory
//! types, weights, usage log, archive, dialogue buffer, history) in
//! PostgreSQL tables; the field rules are the shared ones of
//! [`agcore_memory::long_term::apply`] and the flows those of
//! [`agcore_memory::long_term::sql`], so every backend behaves alike. This
//! module holds the connections and transactions ([`PostgresLongTermDriver`]),
//! the row operations' SQL (`tx`, `rows`) and the search.

mod rows;
pub(crate) mod schema;
mod search;
mod tx;

use agcore_memory::MemoryError;
use agcore_memory::long_term::sql::{Access, SqlDriver, SqlLongTerm, Work, WriteIntent};
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use agcore_memory::retry::retry_lock_conflicts;
use async_trait::async_trait;
use deadpool_postgres::{Client, Pool};

use crate::error::{PostgresError, Result, is_lock_conflict};
use tx::PgRows;

/// Long-term memory on PostgreSQL. Cheap to clone; `Send + Sync`. Get one
/// from [`PostgresDatabase::long_term`](crate::PostgresDatabase::long_term)
/// and wrap it in [`LongTermMemory`](agcore_memory::long_term::LongTermMemory).
///
/// Writes are transactions that lock the rows they change, so agents in
/// several processes can share one database: two saves of the same text in
/// a scope at once make one entry (a unique `(scope, content_key)` index).
/// Search is scoped BM25: only the scope's postings and statistics are read.
/// A write the server rolls back for a deadlock or serialization failure
/// runs again (up to 5 runs), as on MySQL / MariaDB.
pub type PostgresLongTerm = SqlLongTerm<PostgresLongTermDriver>;

/// The PostgreSQL driver of [`PostgresLongTerm`]: a connection pool, its
/// transactions and PostgreSQL's SQL for the shared flows
/// ([`SqlDriver`]). Cheap to clone.
#[derive(Clone)]
pub struct PostgresLongTermDriver {
    pool: Pool,
}

impl std::fmt::Debug for PostgresLongTermDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresLongTerm").finish_non_exhaustive()
    }
}

/// Long-term memory on `pool`.
pub(crate) fn long_term(pool: Pool) -> PostgresLongTerm {
    SqlLongTerm::new(PostgresLongTermDriver { pool })
}

impl PostgresLongTermDriver {
    async fn client(&self) -> Result<Client> {
        if self.pool.is_closed() {
            return Err(crate::error::storage(
                "postgres: long-term memory is closed",
            ));
        }
        Ok(self.pool.get().await?)
    }
}

#[async_trait]
impl SqlDriver for PostgresLongTermDriver {
    type Error = PostgresError;

    async fn write<T: Send + 'static>(
        &self,
        _intent: WriteIntent<'_>,
        work: Work<PostgresError, T>,
    ) -> Result<T, MemoryError> {
        let work = &work;
        Ok(
            retry_lock_conflicts("long-term write", is_lock_conflict, || async move {
                let mut client = self.client().await?;
                let tx = client.transaction().await?;
                let value = work(&mut PgRows::new(&tx)).await?;
                tx.commit().await?;
                Ok(value)
            })
            .await?,
        )
    }

    /// Reads are not run again; an update is after a lock conflict.
    async fn run<T: Send + 'static>(
        &self,
        access: Access,
        work: Work<PostgresError, T>,
    ) -> Result<T, MemoryError> {
        let work = &work;
        let once = || async move { work(&mut PgRows::new(&self.client().await?)).await };
        Ok(match access {
            Access::Update => {
                retry_lock_conflicts("long-term update", is_lock_conflict, once).await?
            }
            _ => once().await?,
        })
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        Ok(search::search(&self.client().await?, scope, query, request).await?)
    }

    async fn close(&self) -> Result<(), MemoryError> {
        self.pool.close();
        Ok(())
    }
}
