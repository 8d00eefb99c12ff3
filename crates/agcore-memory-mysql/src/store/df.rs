//! Document frequencies of the store's full-text words, kept by the writers
//! in `agcore_item_terms (word, df)` (see [`crate::doc_freq`]): the number
//! of items holding `word` in either BM25F field, their own `terms` or
//! their context field's `context_terms` — the frequency BM25F's idf takes
//! (without a context field, the own field alone).
//!
//! A write transaction records, per item it touches, what each field held
//! before it and what it wrote
//! ([`WordChanges`](agcore_search::doc_freq::WordChanges)); before its
//! commit the frequencies shift by the words each item gained or lost over
//! both fields (`WordChanges::deltas`), sent with the statistics in one
//! round trip (`stats::apply`). [`sync`] counts them afresh when the table
//! was counted for another analyzer or context field (or never): on the
//! first open after the upgrade, after a re-index and when the fields are
//! derived again.

use std::collections::BTreeSet;

use agcore_memory::retriever::ContextField;
use agcore_search::ANALYZER_ID;
use agcore_search::doc_freq::{KnownWords, distinct};
use mysql_async::Conn;

use super::meta::{recorded, settings};
use crate::doc_freq::DfTable;
use crate::error::Result;

pub(crate) const TABLE: DfTable = DfTable::STORE;

/// Creates the rows of the words in `columns` (items' own `terms`
/// columns) not known to exist, in statements committed at once, before
/// the write transaction (a context field holds the words of other items,
/// whose rows exist).
pub(crate) async fn create_missing<'a>(
    conn: &mut Conn,
    known: &KnownWords,
    columns: impl Iterator<Item = &'a str>,
) -> Result<()> {
    let words: BTreeSet<&str> = columns.flat_map(distinct).collect();
    TABLE.create_missing(conn, known, words).await
}

/// What the frequencies are counted for: the analyzer and the context
/// field's derivation settings (a meta row's length at most).
fn counted_for(context: Option<&ContextField>) -> String {
    recorded(format!("{ANALYZER_ID} {}", settings(context)))
}

/// Counts every word afresh from the items' fields unless the table was
/// counted for this analyzer and context field (`agcore_store_meta`, name
/// `df`; [`DfTable::sync`]). Runs after any re-index and after the context
/// fields are derived.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn sync(conn: &mut Conn, context: Option<&ContextField>) -> Result<()> {
    TABLE.sync(conn, &counted_for(context)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_recorded_per_context_field() {
        assert_ne!(
            counted_for(None),
            counted_for(Some(&ContextField::default()))
        );
    }
}
