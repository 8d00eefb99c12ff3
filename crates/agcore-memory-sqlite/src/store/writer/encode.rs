//! Encoding items for their rows (index terms, metadata JSON), with helper
//! threads working ahead of the writer
//! ([`agcore_memory::sql_store::ahead`]): tokenising is most of a batch's
//! CPU time outside SQLite and each item is independent.

use crate::error::{Result, SqliteError};

use crate::store::query::index_terms;
use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::ahead::{Ahead, work_ahead};

/// What an item's row stores beside its own fields.
#[derive(Debug)]
pub(super) struct Encoded {
    /// The `terms` column ([`index_terms`] of the content).
    pub(super) terms: String,
    /// The metadata as JSON text.
    pub(super) metadata: String,
    /// The `grp` column: the item's sequence under the context field.
    pub(super) group: Option<String>,
}

fn encode(items: &[&MemoryItem], context: Option<&ContextField>) -> Result<Vec<Encoded>> {
    items
        .iter()
        .map(|item| {
            Ok(Encoded {
                terms: index_terms(&item.content),
                metadata: serde_json::to_string(&item.metadata)?,
                group: context.and_then(|c| c.group_of(item)),
            })
        })
        .collect()
}

/// The items encoded so far, in order ([`Ahead::done`]); [`Ahead::take`]
/// extends them.
pub(super) type Encoder<'a, 'i> = Ahead<'a, &'i MemoryItem, Encoded, SqliteError>;

/// Runs `f` with an [`Encoder`] of `items`, with up to `threads - 1` helper
/// threads for a large batch (none when they cannot start).
///
/// # Errors
/// What `f` returns; [`MemoryError::Serialization`](agcore_memory::MemoryError)
/// when an item's metadata cannot be encoded.
pub(super) fn with_encoder<'i, R>(
    items: &[&'i MemoryItem],
    context: Option<&ContextField>,
    threads: usize,
    f: impl FnOnce(&mut Encoder<'_, 'i>) -> Result<R>,
) -> Result<R> {
    let work = |part: &[&MemoryItem]| encode(part, context);
    work_ahead(items, (threads, "agcore-sqlite-encode"), &work, f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agcore_memory::sql_store::ahead::PIECE;

    #[test]
    fn every_item_is_encoded_in_order_whatever_the_threads() {
        let items: Vec<MemoryItem> = (0..(5 * PIECE + 7))
            .map(|i| MemoryItem::new(format!("k{i}"), format!("word{i} 记忆系统")))
            .collect();
        let refs: Vec<&MemoryItem> = items.iter().collect();
        for threads in [1, 2, 4] {
            let encoded = with_encoder(&refs, None, threads, |enc| enc.finish()).unwrap();
            let terms: Vec<String> = encoded.into_iter().map(|e| e.terms).collect();
            let expected: Vec<String> = refs.iter().map(|i| index_terms(&i.content)).collect();
            assert_eq!(terms, expected);
        }
    }
}
