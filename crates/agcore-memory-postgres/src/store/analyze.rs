//! Planner statistics after bulk writes: the shared rule
//! ([`agcore_memory::sql_store::AutoAnalyze`]: once the rows written reach
//! the table's size when last analysed, on a task of its own) with
//! PostgreSQL's `ANALYZE` and row estimate.

use agcore_memory::sql_store;
use deadpool_postgres::Pool;

use crate::error::PostgresError;

/// The tables a search plans over.
const STATEMENT: &str = "ANALYZE agcore_items, agcore_postings";

/// One store's count of rows written since its last `ANALYZE`.
#[derive(Debug, Default)]
pub(crate) struct AutoAnalyze(sql_store::AutoAnalyze);

impl AutoAnalyze {
    /// Counts `rows` written; when due, starts an `ANALYZE` on a task.
    pub(crate) fn after_write(&self, pool: &Pool, rows: usize) {
        self.0.after_write(rows, || analyze(pool.clone()));
    }
}

/// Runs [`STATEMENT`]; returns the server's new row estimate of the items.
async fn analyze(pool: Pool) -> Result<usize, PostgresError> {
    let client = pool.get().await?;
    client.batch_execute(STATEMENT).await?;
    let row = client
        .query_one(
            "SELECT GREATEST(reltuples, 0)::int8 FROM pg_class WHERE oid = 'agcore_items'::regclass",
            &[],
        )
        .await?;
    Ok(usize::try_from(row.try_get::<_, i64>(0)?).unwrap_or(0))
}
