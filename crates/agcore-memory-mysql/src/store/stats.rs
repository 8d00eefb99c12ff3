//! The statistics a write transaction changes — the BM25 rows
//! (`agcore_item_stats`: documents, total length), the context field's
//! (`agcore_context_stats`: members of a sequence, summed field lengths)
//! and the document frequencies (`agcore_item_terms`, see `super::df`) —
//! added up while it runs and written at its end, as its last statements,
//! sent in one round trip: the rows they lock (the writer's shard row,
//! common words' rows) stay locked only until commit.

use agcore_search::doc_freq::WordChanges;
use mysql_async::Transaction;
use mysql_async::prelude::Queryable;

use super::context::ContextDelta;
use super::df::TABLE;
use crate::error::Result;

/// How a write changed the BM25 statistics.
#[derive(Debug, Default)]
pub(crate) struct ItemDelta {
    /// Change of the number of items.
    pub(crate) docs: i64,
    /// Change of the summed lengths (index words).
    pub(crate) len: i64,
    /// The fields written, for the document frequencies.
    pub(crate) words: WordChanges,
}

/// Adds `items` and `context` to the statistics rows `shard` and the
/// frequencies of the words the write changed, in one round trip (none when
/// nothing changed). Index words are `[a-z0-9]` only and numbers are
/// numbers, so the statements are sent as text with their values inline;
/// a word in any other shape is bound as a parameter, in a statement of
/// its own.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn apply(
    tx: &mut Transaction<'_>,
    shard: i16,
    items: &ItemDelta,
    context: ContextDelta,
) -> Result<()> {
    let deltas = items.words.deltas();
    let mut sql = match TABLE.add_inline(&deltas) {
        Some(sql) => sql,
        None => {
            TABLE.add(tx, &deltas).await?;
            String::new()
        }
    };
    let items_changed = items.docs != 0 || items.len != 0;
    let context_changed = context != ContextDelta::default();
    let (docs, len, grouped, context_len) =
        (items.docs, items.len, context.grouped, context.context_len);
    sql.push_str(&match (items_changed, context_changed) {
        (false, false) => String::new(),
        (true, false) => format!(
            "UPDATE agcore_item_stats SET docs = docs + {docs}, total_len = total_len + {len} \
             WHERE shard = {shard}"
        ),
        (false, true) => format!(
            "UPDATE agcore_context_stats SET grouped = grouped + {grouped}, \
             context_len = context_len + {context_len} WHERE shard = {shard}"
        ),
        (true, true) => format!(
            "UPDATE agcore_item_stats s JOIN agcore_context_stats c ON c.shard = s.shard \
             SET s.docs = s.docs + {docs}, s.total_len = s.total_len + {len}, \
             c.grouped = c.grouped + {grouped}, c.context_len = c.context_len + {context_len} \
             WHERE s.shard = {shard}"
        ),
    });
    if !sql.is_empty() {
        tx.query_drop(sql).await?;
    }
    Ok(())
}
