//! Schema migration of `SqliteStore` from version 1: a database written with
//! the version-1 layout (FTS5 only, built by hand with rows) opens with the
//! current code, every row kept, the impact-ordered index rebuilt from the
//! rows so the pruned search equals the exhaustive ranking of the listed
//! rows (`agcore_memory_testkit::reference`), and ends in the layout of a new
//! database (the FTS5 table and its triggers dropped).
#![cfg(test)]

use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::reference::store_copy;
use rusqlite::Connection;

/// Version 1 of the `SqliteStore` schema, as released.
const V1: &str = r#"
CREATE TABLE memory_items (
    pk            INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL UNIQUE,
    content       TEXT    NOT NULL,
    metadata      TEXT    NOT NULL,
    created_secs  INTEGER NOT NULL,
    created_nanos INTEGER NOT NULL,
    terms         TEXT    NOT NULL
);
CREATE INDEX memory_items_created ON memory_items (created_secs, created_nanos, id);
CREATE VIRTUAL TABLE memory_fts USING fts5(
    terms,
    content = 'memory_items',
    content_rowid = 'pk',
    tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
);
CREATE TRIGGER memory_items_ai AFTER INSERT ON memory_items BEGIN
    INSERT INTO memory_fts (rowid, terms) VALUES (new.pk, new.terms);
END;
CREATE TRIGGER memory_items_ad AFTER DELETE ON memory_items BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.pk, old.terms);
END;
CREATE TRIGGER memory_items_au AFTER UPDATE ON memory_items
WHEN old.terms IS NOT new.terms OR old.pk IS NOT new.pk BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.pk, old.terms);
    INSERT INTO memory_fts (rowid, terms) VALUES (new.pk, new.terms);
END;
PRAGMA user_version = 1;
"#;

const CONTENTS: &[&str] = &[
    "the user prefers rust for systems work",
    "rust memory index with bm25 ranking",
    "python scripts for data cleaning",
    "用户 喜欢 简洁 的 回答",
    "记忆 系统 全文 检索",
    "coffee every morning before the standup",
    "rust rust rust compiler errors",
];

fn v1_database(path: &std::path::Path, rows: usize) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(V1).unwrap();
    let mut insert = conn
        .prepare(
            "INSERT INTO memory_items (id, content, metadata, created_secs, created_nanos, terms) \
             VALUES (?1, ?2, '{}', ?3, 0, ?4)",
        )
        .unwrap();
    for n in 0..rows {
        let content = format!("{} note{}", CONTENTS[n % CONTENTS.len()], n % 13);
        // Version 1 stored the keywords joined by spaces (lowercase words, CJK bigrams).
        let terms = agcore_search::extract_keywords(&content).join(" ");
        insert
            .execute(rusqlite::params![
                format!("old:{n:05}"),
                content,
                1_700_000_000 + i64::try_from(n).unwrap(),
                terms
            ])
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn version_1_database_is_upgraded_with_every_row_and_an_exact_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    v1_database(&path, 3_000);

    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(store.count(&MemoryFilter::all()).await.unwrap(), 3_000);
    assert_eq!(
        store.get("old:00003").await.unwrap().unwrap().content,
        format!("{} note3", CONTENTS[3])
    );
    let listed = store_copy(&store, Some(ContextField::default()))
        .await
        .unwrap();
    for query in [
        "rust ranking",
        "简洁的回答",
        "coffee morning note7",
        "记忆检索",
        "python",
    ] {
        for limit in [1, 10, 100] {
            let opts = SearchOptions::top_k(limit);
            let pruned = store.search(query, &opts).await.unwrap();
            let exhaustive = listed.exhaustive_search(query, &opts).await.unwrap();
            assert!(!pruned.is_empty(), "{query}");
            let ids = |h: &[agcore_memory::ScoredItem]| {
                h.iter().map(|h| h.item.id.clone()).collect::<Vec<_>>()
            };
            assert_eq!(ids(&pruned), ids(&exhaustive), "{query} top {limit}");
            for (p, e) in pruned.iter().zip(&exhaustive) {
                assert!((p.score - e.score).abs() <= 1e-9 * e.score.abs().max(1.0));
            }
        }
    }
    // Writes after the upgrade keep the new index in step.
    store
        .save(MemoryItem::new(
            "old:00003",
            "completely different words now",
        ))
        .await
        .unwrap();
    store.delete("old:00010").await.unwrap();
    let hits = store
        .search("completely different", &SearchOptions::top_k(3))
        .await
        .unwrap();
    assert_eq!(hits[0].item.id, "old:00003");
    assert!(store.integrity_check().await.unwrap().is_empty());
    drop(store);

    let conn = Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row(
            "SELECT version FROM agcore_schema WHERE component = 'store'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, 6);
    let (docs, postings): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT docs FROM bm25_stats WHERE scope = 0), (SELECT count(*) FROM bm25_blocks)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(docs, 2_999);
    assert!(postings > 0);
    let fresh_path = dir.path().join("fresh.db");
    SqliteStore::open(&fresh_path).await.unwrap();
    let fresh = Connection::open(&fresh_path).unwrap();
    assert_eq!(
        layout(&conn),
        layout(&fresh),
        "the layout of a new database"
    );
    assert!(!layout(&conn).iter().any(|o| o.contains("memory_fts")));
}

/// Every schema object (type and name) and every column (table, name, type,
/// not-null flag, default) of the database.
fn layout(conn: &Connection) -> Vec<String> {
    let mut out: Vec<String> = conn
        .prepare(
            "SELECT m.type || ' ' || m.name || ' ' || coalesce(c.name, '') || ' ' || \
             coalesce(c.type, '') || ' ' || coalesce(c.\"notnull\", '') || ' ' || \
             coalesce(c.dflt_value, '') \
             FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) c \
             WHERE m.type = 'table' OR m.sql IS NOT NULL",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    out.sort();
    out
}

/// The reference ranks the rows the store lists, not its index: postings
/// removed behind the store's back are missed by its search and not by the
/// reference, so a comparison with the reference catches a broken index.
#[tokio::test(flavor = "multi_thread")]
async fn an_index_missing_postings_ranks_apart_from_the_listed_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let items = CONTENTS
        .iter()
        .enumerate()
        .map(|(n, text)| MemoryItem::new(format!("n{n}"), *text))
        .collect();
    store.save_many(items).await.unwrap();
    let opts = SearchOptions::top_k(5);
    let want = ranked_from_rows(&store, "rust", &opts).await;
    assert_eq!(want.len(), 3, "{want:?}");
    assert_eq!(ranked(&store, "rust", &opts).await, want);
    Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM bm25_blocks WHERE term = 'rust'", [])
        .unwrap();
    assert_eq!(ranked_from_rows(&store, "rust", &opts).await, want);
    assert_ne!(ranked(&store, "rust", &opts).await, want);
    let problems = store.integrity_check().await.unwrap();
    assert!(
        !problems.is_empty(),
        "the check compares postings with rows"
    );
}

/// The ids `store`'s search returns.
async fn ranked(store: &SqliteStore, query: &str, opts: &SearchOptions) -> Vec<String> {
    let hits = store.search(query, opts).await.unwrap();
    hits.into_iter().map(|h| h.item.id).collect()
}

/// The ids of the exhaustive ranking of the rows `store` lists.
async fn ranked_from_rows(store: &SqliteStore, query: &str, opts: &SearchOptions) -> Vec<String> {
    let listed = store_copy(store, Some(ContextField::default()))
        .await
        .unwrap();
    let hits = listed.exhaustive_search(query, opts).await.unwrap();
    hits.into_iter().map(|h| h.item.id).collect()
}
