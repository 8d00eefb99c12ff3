//! Steady state for timing searches: `VACUUM (ANALYZE)` of the tables a
//! bench reads. Autovacuum reaches a bulk-loaded table some time later;
//! until then every index read also visits the table (no visibility map)
//! and plans follow stale statistics, so timings would follow autovacuum's
//! schedule (search p50 at 100k 3 or 16–19 ms from one run to the next).

use agcore_memory_postgres::PostgresDatabase;

/// Runs `VACUUM (ANALYZE) {tables}` (a comma-separated list) in `db`'s schema.
pub async fn vacuum(db: &PostgresDatabase, tables: &str) {
    db.pool()
        .get()
        .await
        .unwrap()
        .batch_execute(&format!("VACUUM (ANALYZE) {tables}"))
        .await
        .unwrap();
}
