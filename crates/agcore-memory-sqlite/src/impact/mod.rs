//! An impact-ordered BM25 index in SQLite tables, shared by `SqliteStore` and
//! the long-term memory backend (each in its own database file).
//!
//! - `bm25_blocks (scope, term, tfb, len, first_doc)` (`WITHOUT ROWID`):
//!   postings packed in blocks. A block lists `(len, doc)` pairs (at most
//!   [`BLOCK_DOCS`], ascending by document) of documents of length `len`
//!   holding `term` with the frequency bucket `tfb = min(tf, TF_BUCKETS)`. A
//!   document with a context field (a second BM25F field, see
//!   [`FieldDoc`]) holding the term is in the run of [`run_code`]`(tf, ctf)`
//!   instead, keyed by its own length when `tf > 0` and by its context
//!   length otherwise; documents without context keep the plain codes
//!   1..=[`TF_BUCKETS`]. A
//!   (term, bucket) run is read in key order, so it yields postings shortest
//!   document first and, within one length, by document: the BM25
//!   contribution only falls along a run — for any mean length — and the
//!   next posting bounds everything after it exactly: impact-ordered postings
//!   (Anh & Moffat 2006, "Pruned query evaluation using pre-computed
//!   impacts", SIGIR) without quantisation. Since every posting of a block
//!   has the block's length, a run is read block by block: a top-k that
//!   stops early reads one block of a long list, not all of it (version 1
//!   grouped eight lengths per key and had to read and sort a whole range).
//!   Packing keeps writes cheap: a batch writes one row per (term, bucket,
//!   length) group, not one per posting.
//! - `bm25_terms (scope, term) → (df, max_tf, max_ctf, min_clen)` and
//!   `bm25_stats (scope) → (docs, tokens, grouped, context_tokens)`: the
//!   collection statistics BM25F needs (N, document frequencies — documents
//!   holding the term in either field —, mean own length over all documents,
//!   mean context length over the documents with a context field) and the
//!   run bounds (largest tf and context tf, smallest context length of a
//!   document holding the term in both fields; stale-safe after deletions),
//!   so a search never counts rows. A term no document holds any more has
//!   no row.
//!
//! `scope` is part of every key: a search reads only its scope's rows. The
//! backends call [`add_docs`] and [`remove_docs`] in the transaction that
//! writes the documents, with the `terms` column values written or removed.

use crate::error::Result;

use rusqlite::Connection;

mod check;
mod stats;
mod upgrade;
mod write;

#[cfg(test)]
pub(crate) use check::check;
pub(crate) use check::check_fields;
pub(crate) use stats::{ScopeStats, TermStats, scope_stats, term_stats};
pub(crate) use upgrade::{add_context_columns, split_by_length};
pub(crate) use write::replace::replace_fields;
pub(crate) use write::{add_docs, add_fields, remove_docs};

/// Term-frequency buckets: `tf` 1, 2 and 3 each have their own runs; larger
/// frequencies share the last bucket (bounded with the term's largest `tf`).
pub(crate) const TF_BUCKETS: u32 = 4;
/// Most postings in one block.
pub(crate) const BLOCK_DOCS: usize = 512;
/// The context tf bucket's multiplier in a run code (see [`run_code`]).
pub(crate) const CONTEXT_STRIDE: u32 = 8;

/// The run (`tfb` column) of a posting with `tf` occurrences in the own text
/// and `ctf` in the context field: `min(tf, TF_BUCKETS) + CONTEXT_STRIDE ·
/// min(ctf, TF_BUCKETS)`. Without context it is the plain tf bucket.
pub(crate) fn run_code(tf: u32, ctf: u32) -> u32 {
    tf.min(TF_BUCKETS) + CONTEXT_STRIDE * ctf.min(TF_BUCKETS)
}

/// The (tf bucket, context tf bucket) of a run code.
pub(crate) fn split_code(code: u32) -> (u32, u32) {
    (code % CONTEXT_STRIDE, code / CONTEXT_STRIDE)
}

/// A document as the index takes it: its number, its `terms` column value
/// and its context field — the analysed terms of its neighbours, joined by
/// spaces — or `None` when it belongs to no sequence (it then ranks by
/// plain BM25, and does not count in the mean context length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldDoc<'a> {
    pub(crate) doc: i64,
    pub(crate) terms: &'a str,
    pub(crate) context: Option<&'a str>,
}

impl<'a> FieldDoc<'a> {
    /// A document without a context field.
    pub(crate) fn plain(doc: i64, terms: &'a str) -> Self {
        Self {
            doc,
            terms,
            context: None,
        }
    }
}

/// The block table of the impact-ordered index.
pub(crate) const BLOCKS_TABLE: &str = "
CREATE TABLE bm25_blocks (
    scope     INTEGER NOT NULL,
    term      TEXT    NOT NULL,
    tfb       INTEGER NOT NULL,
    len       INTEGER NOT NULL,
    first_doc INTEGER NOT NULL,
    last_doc  INTEGER NOT NULL,
    postings  BLOB    NOT NULL,
    PRIMARY KEY (scope, term, tfb, len, first_doc)
) WITHOUT ROWID;";

/// The statistics tables of the impact-ordered index.
pub(crate) const STATS_TABLES: &str = "
CREATE TABLE bm25_terms (
    scope    INTEGER NOT NULL,
    term     TEXT    NOT NULL,
    df       INTEGER NOT NULL,
    max_tf   INTEGER NOT NULL,
    max_ctf  INTEGER NOT NULL DEFAULT 0,
    min_clen INTEGER,
    PRIMARY KEY (scope, term)
) WITHOUT ROWID;
CREATE TABLE bm25_stats (
    scope          INTEGER PRIMARY KEY,
    docs           INTEGER NOT NULL,
    tokens         INTEGER NOT NULL,
    grouped        INTEGER NOT NULL DEFAULT 0,
    context_tokens INTEGER NOT NULL DEFAULT 0
);";

/// Creates the tables of the impact-ordered index (its latest layout).
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn create_tables(conn: &Connection) -> Result<()> {
    conn.execute_batch(BLOCKS_TABLE)?;
    conn.execute_batch(STATS_TABLES)?;
    Ok(())
}

/// BM25's tf part, as FTS5's `bm25()` computes it
/// ([`agcore_search::fts5_tf_part`]: `k1 = 1.2`, `b = 0.75`, FTS5's order of
/// operations, so the same floating-point result).
pub(crate) fn tf_part(tf: f64, len: f64, avg_len: f64) -> f64 {
    agcore_search::fts5_tf_part(tf, len, avg_len)
}

/// FTS5 `bm25()`'s idf: `ln((N − df + 0.5) / (df + 0.5))`, or 1e-6 when that
/// is not positive.
pub(crate) fn idf(docs: f64, df: f64) -> f64 {
    agcore_search::Bm25::fts5_idf(docs, df)
}

/// The document length and distinct terms (with frequencies) of a `terms`
/// column value, skipping its first `skip` tokens (the exhaustive reference
/// of the `testkit` feature and the tests count with it).
#[cfg(any(test, feature = "testkit"))]
pub(crate) fn term_frequencies(terms: &str, skip: usize) -> (u32, Vec<(&str, u32)>) {
    let mut counts: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut len = 0u32;
    for token in terms.split(' ').filter(|t| !t.is_empty()).skip(skip) {
        len = len.saturating_add(1);
        let c = counts.entry(token).or_insert(0);
        *c = c.saturating_add(1);
    }
    (len, counts.into_iter().collect())
}

/// Postings `(len, doc)` as a block value: 12 bytes each (length then
/// document, little-endian).
pub(crate) fn encode_postings(postings: &[(u32, i64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 12);
    for (len, doc) in postings {
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&doc.to_le_bytes());
    }
    out
}

/// The postings of a block value.
pub(crate) fn decode_postings(blob: &[u8]) -> Vec<(u32, i64)> {
    blob.chunks_exact(12)
        .filter_map(|c| {
            let (len, doc) = c.split_at(4);
            Some((
                u32::from_le_bytes(len.try_into().ok()?),
                i64::from_le_bytes(doc.try_into().ok()?),
            ))
        })
        .collect()
}

/// A posting: `(document length, document)`.
pub(crate) type Posting = (u32, i64);

/// Rows re-tokenised per statement batch when an index is rebuilt.
pub(crate) const BATCH: i64 = 2_000;

/// Drops the postings and statistics of the scopes `scope_clause` selects.
pub(crate) fn clear_postings(conn: &Connection, scope_clause: &str, param: i64) -> Result<()> {
    for table in ["bm25_blocks", "bm25_terms", "bm25_stats"] {
        conn.execute(
            &format!("DELETE FROM {table} WHERE {scope_clause}"),
            [param],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf_part_falls_with_length_for_any_mean() {
        for avg in [1.0, 5.0, 12.0, 300.0] {
            for tf in 1..6 {
                for len in tf..60 {
                    let (t, l) = (f64::from(tf), f64::from(len));
                    assert!(tf_part(t, l, avg) >= tf_part(t, l + 1.0, avg));
                    assert!(tf_part(t + 1.0, l, avg) >= tf_part(t, l, avg));
                }
            }
        }
    }

    #[test]
    fn idf_matches_fts5() {
        assert!((idf(100.0, 10.0) - (90.5f64 / 10.5).ln()).abs() < 1e-12);
        assert!((idf(10.0, 9.0) - 1e-6).abs() < 1e-18);
    }

    #[test]
    fn term_frequencies_skip_and_count() {
        let (len, mut tfs) = term_frequencies("scope a b a 记忆", 1);
        tfs.sort_unstable();
        assert_eq!(len, 4);
        assert_eq!(tfs, [("a", 2), ("b", 1), ("记忆", 1)]);
        assert_eq!(term_frequencies("", 0).0, 0);
    }

    #[test]
    fn blocks_add_remove_and_check() {
        let conn = Connection::open_in_memory().unwrap();
        create_tables(&conn).unwrap();
        let mut rows: Vec<(i64, String)> = (0..2000)
            .map(|d| (d, format!("t{} t{} common", d % 7, d % 3)))
            .collect();
        let docs: Vec<(i64, &str)> = rows.iter().map(|(d, t)| (*d, t.as_str())).collect();
        add_docs(&conn, 5, &docs, 0).unwrap();
        assert!(check(&conn, 5, &rows, 0).unwrap().is_empty());
        let gone: Vec<(i64, String)> = rows.iter().filter(|(d, _)| d % 5 == 0).cloned().collect();
        let gone_refs: Vec<(i64, &str)> = gone.iter().map(|(d, t)| (*d, t.as_str())).collect();
        remove_docs(&conn, 5, &gone_refs, 0).unwrap();
        rows.retain(|(d, _)| d % 5 != 0);
        assert!(check(&conn, 5, &rows, 0).unwrap().is_empty());
        assert_eq!(term_stats(&conn, 5, "common").unwrap().df, 1600);
        assert_eq!(term_stats(&conn, 6, "common").unwrap().df, 0);
        let terms = |conn: &Connection| -> i64 {
            conn.query_row("SELECT COUNT(*) FROM bm25_terms WHERE scope = 5", [], |r| {
                r.get(0)
            })
            .unwrap()
        };
        // t0..t6 and common: removing every document of `t0` (d % 7 == 0
        // and d % 3 == 0 share it) drops its row alone.
        assert_eq!(terms(&conn), 8);
        let t0: Vec<(i64, &str)> = rows
            .iter()
            .filter(|(d, _)| d % 7 == 0 || d % 3 == 0)
            .map(|(d, t)| (*d, t.as_str()))
            .collect();
        remove_docs(&conn, 5, &t0, 0).unwrap();
        rows.retain(|(d, _)| d % 7 != 0 && d % 3 != 0);
        assert!(check(&conn, 5, &rows, 0).unwrap().is_empty());
        assert_eq!(terms(&conn), 7);
        assert_eq!(term_stats(&conn, 5, "t0").unwrap(), TermStats::default());
        let all: Vec<(i64, &str)> = rows.iter().map(|(d, t)| (*d, t.as_str())).collect();
        remove_docs(&conn, 5, &all, 0).unwrap();
        assert_eq!(terms(&conn), 0);
        let p = [(3, 1), (0, -2), (u32::MAX, i64::MAX)];
        assert_eq!(decode_postings(&encode_postings(&p)), p);
    }
}
