//! The store's schema component (`store` in `agcore_schema`, see
//! [`crate::migrate`]): an items table and its rows in the shared
//! impact-ordered index (scope 0).
//!
//! Versions: 1 — items, an external-content FTS5 table over them and three
//! triggers that kept it in sync on insert, delete and update (the pattern
//! of the original long-term `memory` layout, see `docs/memory.md`,
//! *Tables*); 2 — the items in the
//! impact-ordered BM25 index (`bm25_*` tables of the `bm25` component),
//! rebuilt from the rows; 3 — every row re-tokenised with the stemming
//! analyzer and the analyzer recorded ([`crate::analysis`]); 4 — the FTS5
//! table recreated with `remove_diacritics 0`, so it matches the analyzer's
//! terms exactly as the impact index does (with 2, FTS5 also folded `ę` to
//! `e`, and the exhaustive reference ranked `ęnglish` as `english` where the
//! search does not — found by the `fts_sqlite` fuzz target); 5 — the context
//! field ([`super::context`]): each row's sequence (`grp`) and its
//! neighbours' terms (`context_terms`), an index on (sequence, creation
//! time, id) to find neighbours, and the settings the field was built with
//! (`memory_context_field`). Upgraded rows get no sequence (the index is
//! already right for that); the store then re-indexes them with the
//! configured field on open; 6 — the FTS5 table and its triggers dropped
//! (`DROP_FTS`): every write kept them and nothing read them (searches
//! use the impact-ordered index, integrity checks compare it with the rows).

use rusqlite::{Connection, Transaction};

use crate::component::Component;
use crate::error::{Result, storage};
use crate::keyset::in_batches;

/// The layout of a new database: version 1's items table with version 5's
/// context columns ([`CONTEXT`]) and without version 6's dropped FTS5 table.
/// `terms` holds the analyzer's terms of `content` joined by spaces (words
/// lowercased and stemmed, CJK text as character bigrams;
/// [`agcore_search::index_terms`]).
const ITEMS: &str = r#"
CREATE TABLE memory_items (
    pk            INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL UNIQUE,
    content       TEXT    NOT NULL,
    metadata      TEXT    NOT NULL,
    created_secs  INTEGER NOT NULL,
    created_nanos INTEGER NOT NULL,
    terms         TEXT    NOT NULL,
    grp           TEXT,
    context_terms TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX memory_items_created ON memory_items (created_secs, created_nanos, id);
"#;

/// Version 5's context-field index and settings (no field recorded yet).
const CONTEXT: &str = "
CREATE INDEX IF NOT EXISTS memory_items_group
    ON memory_items (grp, created_secs, created_nanos, id) WHERE grp IS NOT NULL;
CREATE TABLE IF NOT EXISTS memory_context_field (
    k           INTEGER PRIMARY KEY CHECK (k = 0),
    group_key   TEXT,
    window_size INTEGER NOT NULL
);
INSERT OR IGNORE INTO memory_context_field (k, group_key, window_size) VALUES (0, NULL, 0);
";

/// Version 5's columns on an older table: (column, definition).
const CONTEXT_COLUMNS: [(&str, &str); 2] = [
    ("grp", "TEXT"),
    ("context_terms", "TEXT NOT NULL DEFAULT ''"),
];

/// Version 5: the context columns that are missing, then [`CONTEXT`].
fn add_context(tx: &Connection) -> Result<()> {
    for (column, definition) in CONTEXT_COLUMNS {
        let present: i64 = tx.query_row(
            "SELECT count(*) FROM pragma_table_info('memory_items') WHERE name = ?1",
            [column],
            |r| r.get(0),
        )?;
        if present == 0 {
            tx.execute_batch(&format!(
                "ALTER TABLE memory_items ADD COLUMN {column} {definition};"
            ))?;
        }
    }
    Ok(tx.execute_batch(CONTEXT)?)
}

/// The store's component.
pub(crate) const COMPONENT: Component = Component {
    name: "store",
    latest: 6,
    create: |tx| {
        tx.execute_batch(ITEMS)?;
        tx.execute_batch(CONTEXT)?;
        crate::analysis::record(tx, "store")
    },
    upgrade,
};

fn upgrade(tx: &Transaction<'_>, target: i64) -> Result<()> {
    match target {
        2 => backfill_impacts(tx),
        3 => crate::analysis::reindex(tx, "store"),
        4 => Ok(tx.execute_batch(EXACT_FTS)?),
        5 => add_context(tx),
        6 => Ok(tx.execute_batch(DROP_FTS)?),
        other => Err(storage(format!("store: no upgrade to version {other}"))),
    }
}

/// Version 4: the FTS5 table rebuilt with a tokenizer that keeps diacritics
/// (the triggers name the table and carry over).
const EXACT_FTS: &str = r#"
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5(
    terms,
    content = 'memory_items',
    content_rowid = 'pk',
    tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
);
INSERT INTO memory_fts (memory_fts) VALUES ('rebuild');
"#;

/// Version 6: the FTS5 table of versions 1–5 and its triggers, kept on every
/// write and never read, are dropped.
const DROP_FTS: &str = "
DROP TRIGGER IF EXISTS memory_items_ai;
DROP TRIGGER IF EXISTS memory_items_ad;
DROP TRIGGER IF EXISTS memory_items_au;
DROP TABLE IF EXISTS memory_fts;
";

/// Version 2: the index of every existing row, in batches.
fn backfill_impacts(tx: &Connection) -> Result<()> {
    const BATCH: i64 = 10_000;
    in_batches(
        tx,
        "SELECT pk, terms FROM memory_items WHERE pk > ?1 ORDER BY pk LIMIT ?2",
        BATCH,
        |r| Ok((r.get(0)?, r.get(1)?)),
        |rows: Vec<(i64, String)>| {
            let docs: Vec<(i64, &str)> = rows.iter().map(|(pk, t)| (*pk, t.as_str())).collect();
            crate::impact::add_docs(tx, super::search::STORE_SCOPE, &docs, 0)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Version 5's FTS5 table and triggers, as released.
    const V5_FTS: &str = include_str!("../../tests/fixtures/store-v5-fts.sql");

    fn matches(conn: &Connection, term: &str) -> i64 {
        conn.query_row(
            "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1",
            [format!("\"{term}\"")],
            |r| r.get(0),
        )
        .unwrap()
    }

    fn insert(conn: &Connection, id: &str, terms: &str) {
        conn.execute(
            "INSERT INTO memory_items (id, content, metadata, created_secs, created_nanos, terms) \
             VALUES (?1, 'x', 'null', 0, 0, ?2)",
            [id, terms],
        )
        .unwrap();
    }

    /// Every schema object of the database: (type, name, SQL text).
    fn layout(conn: &Connection) -> Vec<(String, String, Option<String>)> {
        conn.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// The names of the full-text table and its triggers present.
    fn fts_objects(conn: &Connection) -> Vec<String> {
        layout(conn)
            .into_iter()
            .map(|(_, name, _)| name)
            .filter(|name| name.starts_with("memory_fts") || name.starts_with("memory_items_a"))
            .collect()
    }

    #[test]
    fn version_4_rebuilds_a_folding_table() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        // A version-3 database: the folding tokenizer, rows indexed by it.
        conn.execute_batch(&V5_FTS.replace("remove_diacritics 0", "remove_diacritics 2"))
            .unwrap();
        insert(&conn, "a", "english");
        assert_eq!(matches(&conn, "ęnglish"), 1);
        let tx = conn.transaction().unwrap();
        upgrade(&tx, 4).unwrap();
        tx.commit().unwrap();
        assert_eq!(matches(&conn, "english"), 1, "rows carried over");
        assert_eq!(matches(&conn, "ęnglish"), 0);
        insert(&conn, "b", "english");
        assert_eq!(
            matches(&conn, "english"),
            2,
            "the triggers feed the new table"
        );
        conn.execute(
            "INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')",
            [],
        )
        .unwrap();
    }

    #[test]
    fn version_6_drops_the_full_text_table_and_its_triggers() {
        let mut fresh = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut fresh).unwrap();
        assert_eq!(fts_objects(&fresh), Vec::<String>::new());

        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        conn.execute_batch(V5_FTS).unwrap();
        conn.execute(
            "UPDATE agcore_schema SET version = 5 WHERE component = 'store'",
            [],
        )
        .unwrap();
        insert(&conn, "a", "alpha");
        assert_eq!(matches(&conn, "alpha"), 1);
        assert_eq!(fts_objects(&conn).len(), 8, "{:?}", fts_objects(&conn));
        crate::migrate::migrate(&mut conn).unwrap();
        assert_eq!(crate::migrate::version(&conn, "store").unwrap(), 6);
        assert_eq!(fts_objects(&conn), Vec::<String>::new());
        assert_eq!(layout(&conn), layout(&fresh), "as a new database");
        insert(&conn, "b", "beta");
        conn.execute("UPDATE memory_items SET terms = 'gamma' WHERE id = 'a'", [])
            .unwrap();
        conn.execute("DELETE FROM memory_items WHERE id = 'b'", [])
            .unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM memory_items", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }
}
