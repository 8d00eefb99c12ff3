//! An impact-ordered BM25 index in SQLite tables, shared by `SqliteStore` and
//! the long-term memory backend (each in its own database file).
//!
//! - `bm25_blocks (scope, term, tfb, len, first_doc)` (`WITHOUT ROWID`):
//!   postings packed in blocks. A block lists `(len, doc)` pairs (at most
//!   [`BLOCK_DOCS`](agcore_search::impact::BLOCK_DOCS), ascending by document) of documents of length `len`
//!   holding `term` with the frequency bucket `tfb = min(tf, TF_BUCKETS)`. A
//!   document with a context field (a second BM25F field, see
//!   [`FieldDoc`]) holding the term is in the run of [`run_code`](agcore_search::impact::run_code)`(tf, ctf)`
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

pub(crate) use agcore_search::impact::TermStats;
#[cfg(test)]
pub(crate) use check::check;
pub(crate) use check::check_fields;
pub(crate) use stats::{scope_stats, term_stats};
pub(crate) use upgrade::{add_context_columns, split_by_length};
pub(crate) use write::replace::replace_fields;
pub(crate) use write::{add_docs, add_fields, remove_docs};

pub(crate) use agcore_search::impact::{FieldDoc, Posting, decode_postings, encode_postings};

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
    }
}
