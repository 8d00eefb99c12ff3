//! Deletes that keep the impact-ordered index and the neighbours' context
//! fields in step: by id, and the eviction policy's TTL and capacity sweeps.

use chrono::Utc;
use rusqlite::{Connection, ToSql, params};

use super::super::context::{self, Changes, Position};
use super::super::query::time_parts;
use crate::error::{Result, storage};
use agcore_memory::EvictionPolicy;
use agcore_memory::sql_store::ttl_cutoff;

/// The columns a `DELETE … RETURNING` of [`delete_indexed`] returns.
pub(super) const DELETED: &str = "pk, terms, context_terms, grp, created_secs, created_nanos, id";

/// A deleted row as [`DELETED`] returns it.
type Deleted = (i64, String, String, Option<String>, i64, i64, String);

/// Runs a `DELETE … RETURNING` [`DELETED`] and drops the deleted rows from
/// the impact-ordered index, refreshing their neighbours' context fields
/// (`window` on each side); returns how many rows were deleted.
pub(super) fn delete_indexed(
    conn: &Connection,
    sql: &str,
    params: &[&dyn ToSql],
    window: usize,
) -> Result<usize> {
    let gone: Vec<Deleted> = conn
        .prepare_cached(sql)?
        .query_map(params, |r| Deleted::try_from(r))?
        .collect::<Result<_, _>>()?;
    let count = gone.len();
    let mut changes = Changes::default();
    for (pk, terms, context, grp, secs, nanos, id) in gone {
        let at = grp.map(|grp| Position {
            grp,
            secs,
            nanos,
            id,
        });
        changes.remove(pk, terms, context, at);
    }
    context::settle(conn, window, changes)?;
    Ok(count)
}

/// Applies the eviction policy inside the current transaction (`window`:
/// the context field's, 0 without one).
pub(crate) fn evict(conn: &Connection, policy: &EvictionPolicy, window: usize) -> Result<usize> {
    let removed = match policy {
        EvictionPolicy::Ttl { ttl_secs } => {
            let (secs, nanos) = time_parts(ttl_cutoff(*ttl_secs, Utc::now()));
            delete_indexed(
                conn,
                &format!(
                    "DELETE FROM memory_items WHERE (created_secs, created_nanos) <= (?1, ?2) \
                     RETURNING {DELETED}"
                ),
                params![secs, nanos],
                window,
            )?
        }
        EvictionPolicy::Capacity { max_items } => {
            let count: i64 =
                conn.query_row("SELECT count(*) FROM memory_items", [], |row| row.get(0))?;
            let max = i64::try_from(*max_items).unwrap_or(i64::MAX);
            if count <= max {
                return Ok(0);
            }
            delete_indexed(
                conn,
                &format!(
                    "DELETE FROM memory_items WHERE pk IN (SELECT pk FROM memory_items \
                     ORDER BY created_secs, created_nanos, id LIMIT ?1) RETURNING {DELETED}"
                ),
                params![count - max],
                window,
            )?
        }
        EvictionPolicy::None => 0,
        other => {
            return Err(storage(format!(
                "eviction policy {other:?} is not supported by the SQLite store"
            )));
        }
    };
    if removed > 0 {
        tracing::debug!(removed, "sqlite memory store: evicted items");
    }
    Ok(removed)
}
