//! The collection statistics a write changes (BM25F's `N`, own and context
//! lengths), added to the store's counter row once per transaction, last,
//! so the row lock is held only until the commit that follows.

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;

use crate::error::Result;

/// Changes of `agcore_item_stats`' counters.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Delta {
    /// Items.
    pub(crate) docs: i64,
    /// Summed own lengths.
    pub(crate) len: i64,
    /// Items in a sequence (with a context field).
    pub(crate) grouped: i64,
    /// Summed context field lengths.
    pub(crate) context_len: i64,
}

impl Delta {
    /// Whether nothing changes.
    fn is_zero(&self) -> bool {
        *self == Self::default()
    }
}

/// The statement of [`apply`].
///
/// # Errors
/// [`crate::PostgresError`] from the server.
pub(crate) async fn statement(tx: &Transaction<'_>) -> Result<Statement> {
    Ok(tx
        .prepare_cached(
            "UPDATE agcore_item_stats SET docs = docs + $1, total_len = total_len + $2,
                 grouped = grouped + $3, context_len = context_len + $4
             WHERE shard = $5",
        )
        .await?)
}

/// Adds `delta` to counter row `shard` with `statement` (sent when first
/// polled, so it can be pipelined after other writes).
///
/// # Errors
/// The server's.
pub(crate) async fn apply(
    tx: &Transaction<'_>,
    statement: &Statement,
    shard: i16,
    delta: Delta,
) -> Result<u64, tokio_postgres::Error> {
    if delta.is_zero() {
        return Ok(0);
    }
    tx.execute(
        statement,
        &[
            &delta.docs,
            &delta.len,
            &delta.grouped,
            &delta.context_len,
            &shard,
        ],
    )
    .await
}
