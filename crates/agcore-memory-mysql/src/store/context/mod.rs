//! The store's context field ([`ContextField`]): each item of a sequence
//! (metadata `session` by default) is indexed with a second BM25F field
//! holding its `window` neighbours' index words on each side (Robertson,
//! Zaragoza & Taylor 2004), as `InMemoryStore`, `SqliteStore`,
//! `PostgresStore` and `RedisStore` do, so the stores rank the same items
//! alike.
//!
//! - Rows: `agcore_item_context` holds one row per item in a sequence: its
//!   `doc`, the sequence (`grp`, the SHA-256 of [`ContextField::group_of`]),
//!   its position (`created_s`, `created_ns`, `id`: the store's list order,
//!   indexed with `grp`), and its field: the neighbours' `terms` words
//!   concatenated (`context_terms`, under a second `FULLTEXT` index) and
//!   their lengths summed (`context_len`). Items in no sequence have no row.
//! - Statistics: `agcore_context_stats` (16 shards, as the store's) counts
//!   the items in a sequence and sums their field lengths: BM25F normalises
//!   the field by its mean length over those items.
//! - Writers keep fields current in the transaction of every save,
//!   replacement, deletion and eviction ([`settle()`]) after locking the
//!   rows of `agcore_item_groups` for every sequence they touch (in order),
//!   so writers of one sequence take turns and read each other's committed
//!   rows (the sessions are `READ COMMITTED`).
//! - Settings: `agcore_store_meta` row `context_field` records the sequence
//!   key and window the fields were derived with (`null`: none). Opening
//!   with other settings, or after a re-index, derives every field again
//!   ([`sync`]); the weight only matters at search time. Every process
//!   sharing a database should use the same settings.

mod rebuild;
mod rows;
mod settle;

use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use mysql_async::Conn;
use sha2::{Digest, Sha256};

use super::meta::{CONTEXT_KEY as META_KEY, meta, settings};
use crate::error::Result;
pub(crate) use rows::{Changes, Joining, enter, groups_of, leave, lock_groups};
pub(crate) use settle::{ContextDelta, settle};

/// The bound of this store's windows ([`ContextField::stored_window`]):
/// longer than any sequence; keeps the `LIMIT` arithmetic in range. Below
/// the shared [`MAX_STORED_WINDOW`](agcore_memory::retriever::MAX_STORED_WINDOW),
/// as it always was here.
pub(crate) const MAX_WINDOW: usize = 1 << 20;

/// The `grp` of an item under `context`: the SHA-256 of its sequence's
/// name, `None` when it is in no sequence.
pub(crate) fn group_of(context: &ContextField, item: &MemoryItem) -> Option<Vec<u8>> {
    context
        .group_of(item)
        .map(|name| Sha256::digest(name.as_bytes()).to_vec())
}

/// Makes the stored fields those of `configured` (run on open under the
/// migration lock, after re-indexing): when the recorded settings differ,
/// every item's sequence and field is derived again in one transaction.
///
/// # Errors
/// [`crate::MysqlError`] from the server; nothing changes then.
pub(crate) async fn sync(conn: &mut Conn, configured: Option<&ContextField>) -> Result<()> {
    let wanted = settings(configured);
    let recorded = meta(conn, META_KEY).await?;
    if recorded.as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    rebuild::rebuild(conn, configured, &wanted).await?;
    tracing::info!(from = ?recorded, to = %wanted, "mysql memory store: context fields derived");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_too_long_for_a_meta_row_are_hashed() {
        let field = ContextField::default();
        assert_eq!(
            settings(Some(&field)),
            agcore_memory::retriever::derivation_settings(Some(&field))
        );
        let long = settings(Some(&field.with_group_key("k".repeat(400))));
        assert!(long.starts_with("sha256:") && long.len() == 71, "{long}");
    }

    #[test]
    fn groups_hash_the_json_text_of_scalars() {
        let field = ContextField::default();
        let item = |m| MemoryItem::new("a", "x").with_metadata(m);
        let s = group_of(&field, &item(json!({"session": "1"})));
        let n = group_of(&field, &item(json!({"session": 1})));
        assert_eq!(s.as_ref().map(Vec::len), Some(32));
        assert_ne!(s, n, "\"1\" and 1 are distinct sequences");
        assert_eq!(group_of(&field, &item(json!({"session": null}))), None);
        let wide = field.with_window(usize::MAX);
        assert_eq!(
            ContextField::stored_window(Some(&wide), MAX_WINDOW),
            MAX_WINDOW
        );
    }
}
