//! The store's context field ([`ContextField`]): each item of a sequence
//! (metadata `session` by default) is indexed with a second BM25F field
//! holding its `window` neighbours' terms on each side (Robertson, Zaragoza
//! & Taylor 2004), as `InMemoryStore` and `SqliteStore` do, so the stores
//! rank the same items alike.
//!
//! - Rows: `agcore_items.grp` holds the item's sequence
//!   ([`ContextField::group_of`], `NULL` when none) and `context_len` its
//!   field's length (its neighbours' lengths summed); neighbours are found
//!   through `agcore_items_group (grp, created_s, created_ns, id)`, the
//!   store's list order.
//! - Postings: one row per (term, item) holding the term in either field:
//!   own frequency `tf` and length `len`, context frequency `ctf` and length
//!   `clen` (every posting of an item in a sequence carries its
//!   `context_len`; 0 elsewhere). The document frequency counts either
//!   field, as BM25F's does.
//! - Writers keep fields current in the transaction of every save,
//!   replacement, deletion and eviction ([`settle()`]), under a transaction
//!   advisory lock per sequence ([`Locked`]), taken before the rows
//!   change, so concurrent writers to one sequence derive fields from each
//!   other's committed rows.
//! - Settings: `agcore_store_meta` key `context_field` records the sequence
//!   key and window the fields were derived with (`null`: none). Opening
//!   with other settings derives every field again in the migration's
//!   transaction ([`sync`]); the weight only matters at search time. Every
//!   process sharing a database should use the same settings.

mod locks;
mod neighbours;
mod rebuild;
mod settle;
pub(crate) mod stale;

use agcore_memory::retriever::{ContextField, derivation_settings};
use deadpool_postgres::Transaction;

use crate::error::Result;
pub(crate) use locks::{Locked, lock_statement};
pub(crate) use neighbours::Position;
pub(crate) use settle::{Fresh, settle};
use stale::META_KEY;
#[cfg(test)]
use stale::STALE;

/// Makes the stored fields those of `configured` (run on open in the
/// migration's transaction, after re-indexing): when the recorded settings
/// differ, every item's sequence and field is derived again.
///
/// # Errors
/// [`crate::PostgresError`] from the server; nothing changes then.
pub(crate) async fn sync(tx: &Transaction<'_>, configured: Option<&ContextField>) -> Result<()> {
    let wanted = derivation_settings(configured);
    let recorded: Option<String> = match tx
        .query_opt(
            "SELECT value FROM agcore_store_meta WHERE key = $1",
            &[&META_KEY],
        )
        .await?
    {
        Some(row) => Some(row.try_get(0)?),
        None => None,
    };
    if recorded.as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    rebuild::rebuild(tx, configured).await?;
    tx.execute(
        "INSERT INTO agcore_store_meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&META_KEY, &wanted],
    )
    .await?;
    tracing::info!(from = ?recorded, to = %wanted, "postgres memory store: context fields derived");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_never_the_stale_marker() {
        assert_ne!(derivation_settings(None), STALE);
        assert_ne!(
            derivation_settings(Some(&ContextField::default().with_window(2))),
            STALE
        );
    }
}
