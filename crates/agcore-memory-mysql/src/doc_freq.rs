//! Tables of document frequencies `(word, df)` kept by the writers: the
//! store's (`agcore_item_terms`, see `store/df.rs`) and long-term memory's
//! (`agcore_lt_terms`, see `long_term/df.rs`). A search reads a word's
//! frequency here instead of counting the documents that hold it: InnoDB's
//! `FULLTEXT` index takes about 3 µs per matching row, 0.2 s for a word in
//! 70,000 documents, so the searches match only the words that can change
//! their top results ([`crate::prune`]).
//!
//! Rows are created (frequency 0) before the write transaction that counts
//! them ([`DfTable::create_missing`]), so that transaction only updates
//! rows and locks no gaps; the rows of one statement are in word order, so
//! concurrent writers lock shared words in one order. Rows that fall to 0
//! stay (a later document may use the word again). Each process remembers
//! the words whose rows exist ([`KnownWords`]): rows are deleted only when
//! a table is counted afresh, under the migration lock, before any write of
//! this version.

use std::collections::BTreeSet;

use agcore_memory::rebuild::{self, Rebuild};
use agcore_search::doc_freq::{DocCounts, KnownWords, in_order, is_plain};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Value};

use crate::error::{MysqlError, Result};

/// Most words in one statement (two parameters each; MySQL allows 65,535).
const CHUNK: usize = 4_096;

/// Documents read per batch when counting afresh.
const SCAN_BATCH: i64 = 1_000;

/// Words counted in memory before a count is written out.
const FLUSH_WORDS: usize = 100_000;

/// One document-frequency table, the meta table recording what it was
/// counted for (row `df`), and the scan its counts are made from (see
/// [`DfTable::recount`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DfTable {
    /// The table's name.
    pub(crate) name: &'static str,
    meta: &'static str,
    scan: &'static str,
}

impl DfTable {
    /// The store's table.
    pub(crate) const STORE: Self = Self {
        name: "agcore_item_terms",
        meta: "agcore_store_meta",
        scan: "SELECT i.doc, i.terms, COALESCE(x.context_terms, '') FROM agcore_items i
               LEFT JOIN agcore_item_context x ON x.doc = i.doc
               WHERE i.doc > ? ORDER BY i.doc LIMIT ?",
    };
    /// Long-term memory's table.
    pub(crate) const LONG_TERM: Self = Self {
        name: "agcore_lt_terms",
        meta: "agcore_lt_meta",
        scan: "SELECT id, terms, '' FROM agcore_lt_entries WHERE id > ? ORDER BY id LIMIT ?",
    };

    /// Counts every word afresh ([`Self::recount`]) unless the table was
    /// counted for `wanted` (the shared decision, [`rebuild::run`]), then
    /// records `wanted`. Runs under the migration lock: no other process
    /// of this version writes meanwhile. A run cut short leaves the old
    /// record, and the next open counts again from an empty table.
    pub(crate) async fn sync(self, conn: &mut Conn, wanted: &str) -> Result<()> {
        rebuild::run(&mut Counting { table: self, conn }, wanted).await?;
        Ok(())
    }

    /// The statements adding each delta to its word's frequency, as text
    /// with the words inline (rows in the given order), when every word is
    /// [`is_plain`]; `None` otherwise (then use [`Self::add`]). Empty for no
    /// deltas.
    pub(crate) fn add_inline(self, deltas: &[(&str, i64)]) -> Option<String> {
        if !deltas.iter().all(|(w, _)| is_plain(w)) {
            return None;
        }
        let mut sql = String::new();
        for chunk in deltas.chunks(CHUNK) {
            let rows: Vec<String> = chunk.iter().map(|(w, d)| format!("('{w}', {d})")).collect();
            sql.push_str(&format!(
                "INSERT INTO {} (word, df) VALUES {} ON DUPLICATE KEY UPDATE df = df + VALUES(df); ",
                self.name,
                rows.join(", ")
            ));
        }
        Some(sql)
    }

    /// Adds each delta to its word's frequency (rows in the given order),
    /// with the words bound as parameters.
    pub(crate) async fn add(self, conn: &mut impl Queryable, deltas: &[(&str, i64)]) -> Result<()> {
        for chunk in deltas.chunks(CHUNK) {
            let rows = vec!["(?, ?)"; chunk.len()].join(", ");
            let params: Vec<Value> = chunk
                .iter()
                .flat_map(|(word, delta)| [Value::from(*word), Value::Int(*delta)])
                .collect();
            conn.exec_drop(
                format!(
                    "INSERT INTO {} (word, df) VALUES {rows} ON DUPLICATE KEY UPDATE df = df + VALUES(df)",
                    self.name
                ),
                Params::Positional(params),
            )
            .await?;
        }
        Ok(())
    }

    /// Adds `counts` (in word order) and empties it: for counting afresh
    /// in any number of flushes.
    async fn flush(self, conn: &mut impl Queryable, counts: &mut DocCounts) -> Result<()> {
        self.add(conn, &counts.sorted()).await?;
        counts.clear();
        Ok(())
    }

    /// Counts every word afresh: empties the table, then reads the
    /// documents with the table's scan (a `SELECT` of `(id, own terms,
    /// context terms)` with `?` for the id to read after and the batch
    /// size, in id order), counting each document once per word of either
    /// column, and writes the counts out whenever many words are counted
    /// and at the end.
    async fn recount(self, conn: &mut impl Queryable) -> Result<()> {
        conn.query_drop(format!("DELETE FROM {}", self.name))
            .await?;
        let mut counts = DocCounts::default();
        let mut after = i64::MIN;
        loop {
            let rows: Vec<(i64, String, String)> =
                conn.exec(self.scan, (after, SCAN_BATCH)).await?;
            let Some(last) = rows.last().map(|r| r.0) else {
                break;
            };
            for (_, own, context) in &rows {
                counts.add(&[own, context]);
            }
            if counts.len() >= FLUSH_WORDS {
                self.flush(conn, &mut counts).await?;
            }
            after = last;
        }
        self.flush(conn, &mut counts).await
    }

    /// Creates the rows (frequency 0) of the words of `words` not in
    /// `known`, in statements committed at once (`conn` is outside any
    /// transaction), before the write transaction that will count them.
    pub(crate) async fn create_missing(
        self,
        conn: &mut impl Queryable,
        known: &KnownWords,
        words: BTreeSet<&str>,
    ) -> Result<()> {
        let words = known.unknown(words);
        for chunk in words.chunks(CHUNK) {
            let rows = vec!["(?, 0)"; chunk.len()].join(", ");
            conn.exec_drop(
                format!("INSERT IGNORE INTO {} (word, df) VALUES {rows}", self.name),
                Params::Positional(chunk.iter().map(|w| Value::from(*w)).collect()),
            )
            .await?;
        }
        known.learn(&words);
        Ok(())
    }

    /// Each word's frequency, in the order of `words` (0 for a word no
    /// document holds).
    pub(crate) async fn lookup(
        self,
        conn: &mut impl Queryable,
        words: &[String],
    ) -> Result<Vec<f64>> {
        let mut found = Vec::with_capacity(words.len());
        for chunk in words.chunks(CHUNK) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let rows: Vec<(String, i64)> = conn
                .exec(
                    format!("SELECT word, df FROM {} WHERE word IN ({marks})", self.name),
                    Params::Positional(chunk.iter().map(|w| Value::from(w.as_str())).collect()),
                )
                .await?;
            found.extend(rows);
        }
        Ok(in_order(words, found))
    }
}

/// A table's counts as a shared [`Rebuild`] on `conn`.
struct Counting<'c> {
    table: DfTable,
    conn: &'c mut Conn,
}

impl Rebuild for Counting<'_> {
    type Error = MysqlError;

    fn names(&self) -> (&'static str, &'static str) {
        ("mysql", self.table.name)
    }

    async fn recorded(&mut self) -> Result<Option<String>> {
        let sql = format!("SELECT value FROM {} WHERE name = 'df'", self.table.meta);
        Ok(self.conn.query_first(sql).await?)
    }

    async fn rebuild(&mut self) -> Result<()> {
        self.table.recount(self.conn).await
    }

    async fn record(&mut self, wanted: &str) -> Result<()> {
        let sql = format!(
            "INSERT INTO {} (name, value) VALUES ('df', ?) ON DUPLICATE KEY UPDATE value = VALUES(value)",
            self.table.meta
        );
        Ok(self.conn.exec_drop(sql, (wanted,)).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_words_go_inline() {
        assert_eq!(DfTable::STORE.add_inline(&[("x'", 1)]), None);
        let sql = DfTable::STORE.add_inline(&[("x61", 1), ("x62", -1)]);
        assert!(sql.is_some_and(|s| s.contains("('x61', 1), ('x62', -1)")));
        assert_eq!(DfTable::STORE.add_inline(&[]).as_deref(), Some(""));
    }
}
