//! Upgrades of the impact-ordered index (the `bm25` schema component).
//!
//! - Version 2: blocks keyed by exact document length. Version 1 keyed them
//!   by `len >> 3`, so one block held up to eight lengths and a run had to
//!   read and sort a whole range of blocks before it could yield its first
//!   posting.
//! - Version 3: the context-field statistics (`bm25_terms.max_ctf`,
//!   `min_clen`; `bm25_stats.grouped`, `context_tokens`), added with values
//!   true of an index without context fields (0, none, 0, 0), so every
//!   posting and statistic carries over.

use rusqlite::Connection;

use super::write::insert_blocks;
use super::{BLOCKS_TABLE, Posting, decode_postings};
use crate::error::Result;
use agcore_search::impact::blocks::length_blocks;

/// The columns version 3 adds: (table, column, definition).
const CONTEXT_COLUMNS: [(&str, &str, &str); 4] = [
    ("bm25_terms", "max_ctf", "INTEGER NOT NULL DEFAULT 0"),
    ("bm25_terms", "min_clen", "INTEGER"),
    ("bm25_stats", "grouped", "INTEGER NOT NULL DEFAULT 0"),
    ("bm25_stats", "context_tokens", "INTEGER NOT NULL DEFAULT 0"),
];

/// Version 3: adds the context-field statistics columns that are missing.
/// Run it in the migration's transaction.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn add_context_columns(conn: &Connection) -> Result<()> {
    for (table, column, definition) in CONTEXT_COLUMNS {
        let present: bool = conn
            .prepare(&format!(
                "SELECT count(*) FROM pragma_table_info('{table}') WHERE name = ?1"
            ))?
            .query_row([column], |r| r.get::<_, i64>(0))?
            > 0;
        if !present {
            conn.execute_batch(&format!(
                "ALTER TABLE {table} ADD COLUMN {column} {definition};"
            ))?;
        }
    }
    Ok(())
}

/// A (scope, term, tf bucket) run key.
type RunKey = (i64, String, u32);

/// Rewrites a version-1 block table as version 2, one (scope, term, tf
/// bucket) run at a time: the postings are kept, only their grouping
/// changes. Run it in the migration's transaction.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn split_by_length(conn: &Connection) -> Result<()> {
    conn.execute_batch("ALTER TABLE bm25_blocks RENAME TO bm25_blocks_v1;")?;
    conn.execute_batch(BLOCKS_TABLE)?;
    {
        let mut stmt = conn.prepare(
            "SELECT scope, term, tfb, postings FROM bm25_blocks_v1 ORDER BY scope, term, tfb",
        )?;
        let mut rows = stmt.query([])?;
        let mut current: Option<RunKey> = None;
        let mut postings: Vec<Posting> = Vec::new();
        while let Some(row) = rows.next()? {
            let key: RunKey = (row.get(0)?, row.get(1)?, row.get(2)?);
            if current.as_ref() != Some(&key)
                && let Some(done) = current.replace(key)
            {
                write_run(conn, &done, &mut postings)?;
            }
            postings.extend(decode_postings(
                row.get_ref(3)?.as_blob().map_err(rusqlite::Error::from)?,
            ));
        }
        if let Some(done) = current {
            write_run(conn, &done, &mut postings)?;
        }
    }
    conn.execute_batch("DROP TABLE bm25_blocks_v1;")?;
    Ok(())
}

/// Writes one run's postings as blocks of one length each
/// ([`length_blocks`]), then empties them.
fn write_run(conn: &Connection, key: &RunKey, postings: &mut Vec<Posting>) -> Result<()> {
    let (scope, term, tfb) = key;
    insert_blocks(conn, *scope, &length_blocks((term, *tfb), postings))?;
    postings.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impact::{STATS_TABLES, add_docs, check, encode_postings};
    use agcore_search::impact::BLOCK_DOCS;

    /// The version-1 block table.
    const V1_BLOCKS: &str = "
CREATE TABLE bm25_blocks (
    scope     INTEGER NOT NULL,
    term      TEXT    NOT NULL,
    tfb       INTEGER NOT NULL,
    lenb      INTEGER NOT NULL,
    first_doc INTEGER NOT NULL,
    last_doc  INTEGER NOT NULL,
    postings  BLOB    NOT NULL,
    PRIMARY KEY (scope, term, tfb, lenb, first_doc)
) WITHOUT ROWID;";

    #[test]
    fn version_1_blocks_are_split_by_length() {
        // Documents of lengths 1..=20 in two scopes, their postings written
        // as version 1 grouped them: eight lengths a key, 512 a block.
        let rows: Vec<(i64, String)> = (0..3000)
            .map(|d| {
                let words: Vec<String> = (0..=(d % 20))
                    .map(|i| format!("w{}", (d + i) % 9))
                    .collect();
                (d, words.join(" "))
            })
            .collect();
        let v2 = Connection::open_in_memory().unwrap();
        crate::impact::create_tables(&v2).unwrap();
        let docs: Vec<(i64, &str)> = rows.iter().map(|(d, t)| (*d, t.as_str())).collect();
        for scope in [1, 2] {
            add_docs(&v2, scope, &docs, 0).unwrap();
        }
        let v1 = Connection::open_in_memory().unwrap();
        v1.execute_batch(V1_BLOCKS).unwrap();
        v1.execute_batch(STATS_TABLES).unwrap();
        let mut runs: std::collections::BTreeMap<(i64, String, u32, u32), Vec<Posting>> =
            std::collections::BTreeMap::new();
        let mut stmt = v2
            .prepare("SELECT scope, term, tfb, postings FROM bm25_blocks")
            .unwrap();
        let mut read = stmt.query([]).unwrap();
        while let Some(row) = read.next().unwrap() {
            let blob: Vec<u8> = row.get(3).unwrap();
            for (len, doc) in decode_postings(&blob) {
                runs.entry((
                    row.get(0).unwrap(),
                    row.get(1).unwrap(),
                    row.get(2).unwrap(),
                    len >> 3,
                ))
                .or_default()
                .push((len, doc));
            }
        }
        for ((scope, term, tfb, lenb), mut list) in runs {
            list.sort_unstable_by_key(|p| p.1);
            for block in list.chunks(BLOCK_DOCS) {
                v1.execute(
                    "INSERT INTO bm25_blocks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    rusqlite::params![
                        scope,
                        term,
                        tfb,
                        lenb,
                        block.first().unwrap().1,
                        block.last().unwrap().1,
                        encode_postings(block)
                    ],
                )
                .unwrap();
            }
        }
        for table in ["bm25_terms", "bm25_stats"] {
            let sql = format!("SELECT * FROM {table}");
            let mut s = v2.prepare(&sql).unwrap();
            let n = s.column_count();
            let mut r = s.query([]).unwrap();
            while let Some(row) = r.next().unwrap() {
                let values: Vec<rusqlite::types::Value> =
                    (0..n).map(|i| row.get(i).unwrap()).collect();
                let marks = vec!["?"; n].join(", ");
                v1.execute(
                    &format!("INSERT INTO {table} VALUES ({marks})"),
                    rusqlite::params_from_iter(values),
                )
                .unwrap();
            }
        }
        let mixed: i64 = v1
            .query_row("SELECT count(*) FROM bm25_blocks", [], |r| r.get(0))
            .unwrap();
        assert!(mixed > 0);
        split_by_length(&v1).unwrap();
        for scope in [1, 2] {
            assert_eq!(check(&v1, scope, &rows, 0).unwrap(), Vec::<String>::new());
        }
        let mut stmt = v1.prepare("SELECT len, postings FROM bm25_blocks").unwrap();
        let mut read = stmt.query([]).unwrap();
        let mut blocks = 0;
        while let Some(row) = read.next().unwrap() {
            let len: u32 = row.get(0).unwrap();
            let blob: Vec<u8> = row.get(1).unwrap();
            assert!(decode_postings(&blob).iter().all(|p| p.0 == len));
            blocks += 1;
        }
        let fresh: i64 = v2
            .query_row("SELECT count(*) FROM bm25_blocks", [], |r| r.get(0))
            .unwrap();
        assert_eq!(blocks, fresh, "the same blocks as a fresh version-2 index");
    }
}
