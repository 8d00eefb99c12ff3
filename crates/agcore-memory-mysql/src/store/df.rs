//! Document frequencies of the store's full-text words, kept by the writers
//! in `agcore_item_terms (word, df)` (see [`crate::doc_freq`]): the number
//! of items holding `word` in either BM25F field, their own `terms` or
//! their context field's `context_terms` — the frequency BM25F's idf takes
//! (without a context field, the own field alone).
//!
//! A write transaction records, per item it touches, what each field held
//! before it and what it wrote ([`WordChanges`]); before its commit the
//! frequencies shift by the words each item gained or lost over both fields
//! ([`WordChanges::deltas`]), sent with the statistics in one round trip
//! (`stats::apply`). [`sync`] counts them afresh when the table was counted
//! for another analyzer or context field (or never): on the first open
//! after the upgrade, after a re-index and when the fields are derived
//! again.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agcore_memory::retriever::ContextField;
use agcore_search::ANALYZER_ID;
use mysql_async::Conn;
use mysql_async::prelude::Queryable;

use super::meta::{DF_KEY as META_KEY, meta, recorded, settings};
use crate::doc_freq::{DfTable, KnownWords, distinct};
use crate::error::Result;

pub(crate) const TABLE: DfTable = DfTable::STORE;

/// Items read per batch when counting afresh.
const SCAN_BATCH: i64 = 1_000;

/// Words counted in memory before a count is written out.
const FLUSH_WORDS: usize = 100_000;

/// One of an item's two BM25F fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// Its own index words (`agcore_items.terms`).
    Own,
    /// Its context field (`agcore_item_context.context_terms`).
    Context,
}

/// One field of an item: as stored before the transaction, and as written
/// in it (`None`: unchanged).
#[derive(Debug, Default)]
struct Text {
    before: Option<String>,
    now: Option<String>,
}

impl Text {
    fn before(&self) -> &str {
        self.before.as_deref().unwrap_or("")
    }

    fn now(&self) -> &str {
        self.now.as_deref().unwrap_or_else(|| self.before())
    }
}

/// An item's two fields.
#[derive(Debug, Default)]
struct Fields {
    own: Text,
    context: Text,
}

impl Fields {
    fn get(&mut self, field: Field) -> &mut Text {
        match field {
            Field::Own => &mut self.own,
            Field::Context => &mut self.context,
        }
    }

    /// The words of both fields, before or now.
    fn words(&self, now: bool) -> BTreeSet<&str> {
        let (own, context) = if now {
            (self.own.now(), self.context.now())
        } else {
            (self.own.before(), self.context.before())
        };
        let mut words = distinct(own);
        words.extend(distinct(context));
        words
    }
}

/// The fields a write transaction changed, per item id.
#[derive(Debug, Default)]
pub(crate) struct WordChanges {
    items: HashMap<Vec<u8>, Fields>,
}

impl WordChanges {
    /// Records what item `id`'s `field` held when the transaction first
    /// read it (later records of the same field are ignored): call it
    /// before [`Self::set`] for an item that is stored.
    pub(crate) fn was(&mut self, id: &[u8], field: Field, text: &str) {
        let text_of = self.items.entry(id.to_vec()).or_default().get(field);
        text_of.before.get_or_insert_with(|| text.to_owned());
    }

    /// Records that the transaction wrote `text` into item `id`'s `field`
    /// (`""`: emptied, or deleted); a field with no earlier [`Self::was`]
    /// was empty (a new item, or no context row).
    pub(crate) fn set(&mut self, id: &[u8], field: Field, text: String) {
        let text_of = self.items.entry(id.to_vec()).or_default().get(field);
        text_of.before.get_or_insert_with(String::new);
        text_of.now = Some(text);
    }

    /// How each word's frequency changes, in word order, without zeros: an
    /// item counts once for a word in either field.
    pub(crate) fn deltas(&self) -> Vec<(&str, i64)> {
        let mut out: BTreeMap<&str, i64> = BTreeMap::new();
        for fields in self.items.values() {
            let (before, after) = (fields.words(false), fields.words(true));
            for word in after.difference(&before) {
                *out.entry(word).or_insert(0) += 1;
            }
            for word in before.difference(&after) {
                *out.entry(word).or_insert(0) -= 1;
            }
        }
        out.into_iter().filter(|(_, d)| *d != 0).collect()
    }
}

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
/// `df`). Runs under the migration lock, after any re-index and after the
/// context fields are derived: no other process of this version writes
/// meanwhile. A run cut short leaves the old record, and the next open
/// counts again from an empty table.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn sync(conn: &mut Conn, context: Option<&ContextField>) -> Result<()> {
    let wanted = counted_for(context);
    let built = meta(conn, META_KEY).await?;
    if built.as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    conn.query_drop("DELETE FROM agcore_item_terms").await?;
    let mut counts: HashMap<String, i64> = HashMap::new();
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String, String)> = conn
            .exec(
                "SELECT i.doc, i.terms, COALESCE(x.context_terms, '') FROM agcore_items i
                 LEFT JOIN agcore_item_context x ON x.doc = i.doc
                 WHERE i.doc > ? ORDER BY i.doc LIMIT ?",
                (after, SCAN_BATCH),
            )
            .await?;
        let Some(last) = rows.last().map(|r| r.0) else {
            break;
        };
        for (_, own, context) in &rows {
            let mut words = distinct(own);
            words.extend(distinct(context));
            for word in words {
                *counts.entry(word.to_owned()).or_insert(0) += 1;
            }
        }
        if counts.len() >= FLUSH_WORDS {
            TABLE.flush(conn, &mut counts).await?;
        }
        after = last;
    }
    TABLE.flush(conn, &mut counts).await?;
    conn.exec_drop(
        "INSERT INTO agcore_store_meta (name, value) VALUES (?, ?)
         ON DUPLICATE KEY UPDATE value = VALUES(value)",
        (META_KEY, &wanted),
    )
    .await?;
    tracing::info!(from = ?built, to = %wanted, "mysql memory store: document frequencies counted");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_counts_once_over_both_fields() {
        let mut words = WordChanges::default();
        // Stored: own `a b`, context `b c`; rewritten to own `a`, context `c d`.
        words.was(b"1", Field::Own, " a b ");
        words.was(b"1", Field::Context, " b c ");
        words.set(b"1", Field::Own, " a ".into());
        words.set(b"1", Field::Context, " c d ".into());
        // New: own `a e`, context `a`.
        words.set(b"2", Field::Own, " a e ".into());
        words.set(b"2", Field::Context, " a ".into());
        // Deleted: own `c`, no context row.
        words.was(b"3", Field::Own, " c ");
        words.set(b"3", Field::Own, String::new());
        // A later record of what a field held is not the state before.
        words.was(b"1", Field::Own, " z ");
        assert_eq!(
            words.deltas(),
            [("a", 1), ("b", -1), ("c", -1), ("d", 1), ("e", 1)]
        );
    }

    #[test]
    fn unchanged_fields_change_nothing() {
        let mut words = WordChanges::default();
        words.was(b"1", Field::Own, " a ");
        words.was(b"1", Field::Context, " b ");
        words.set(b"1", Field::Context, " b ".into());
        assert!(words.deltas().is_empty());
        assert_ne!(
            counted_for(None),
            counted_for(Some(&ContextField::default()))
        );
    }
}
