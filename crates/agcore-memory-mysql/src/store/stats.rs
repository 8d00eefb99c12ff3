//! The statistics a write transaction changes — the BM25 rows
//! (`agcore_item_stats`: documents, total length) and the context field's
//! (`agcore_context_stats`: members of a sequence, summed field lengths) —
//! added up while it runs and written once, as its last statement: one
//! round trip, and the writer's shard row stays locked only until commit.

use mysql_async::Transaction;
use mysql_async::prelude::Queryable;

use super::context::ContextDelta;
use crate::error::Result;

/// How a write changed the BM25 statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ItemDelta {
    /// Change of the number of items.
    pub(crate) docs: i64,
    /// Change of the summed lengths (index words).
    pub(crate) len: i64,
}

/// Adds `items` and `context` to the statistics rows `shard`, in one
/// statement (none when nothing changed).
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn apply(
    tx: &mut Transaction<'_>,
    shard: i16,
    items: ItemDelta,
    context: ContextDelta,
) -> Result<()> {
    let items_changed = items != ItemDelta::default();
    let context_changed = context != ContextDelta::default();
    match (items_changed, context_changed) {
        (false, false) => {}
        (true, false) => {
            tx.exec_drop(
                "UPDATE agcore_item_stats SET docs = docs + ?, total_len = total_len + ? WHERE shard = ?",
                (items.docs, items.len, shard),
            )
            .await?;
        }
        (false, true) => {
            tx.exec_drop(
                "UPDATE agcore_context_stats SET grouped = grouped + ?, context_len = context_len + ?
                 WHERE shard = ?",
                (context.grouped, context.context_len, shard),
            )
            .await?;
        }
        (true, true) => {
            tx.exec_drop(
                "UPDATE agcore_item_stats s JOIN agcore_context_stats c ON c.shard = s.shard
                 SET s.docs = s.docs + ?, s.total_len = s.total_len + ?,
                     c.grouped = c.grouped + ?, c.context_len = c.context_len + ?
                 WHERE s.shard = ?",
                (
                    items.docs,
                    items.len,
                    context.grouped,
                    context.context_len,
                    shard,
                ),
            )
            .await?;
        }
    }
    Ok(())
}
