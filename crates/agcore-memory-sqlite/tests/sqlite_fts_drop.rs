//! Schema migration 5 → 6 of `SqliteStore`: a database with the version-5
//! layout (items, the FTS5 table over them and its triggers) opens with the
//! current code, the FTS5 table and its triggers are gone, searches return
//! the hits and scores they returned before the upgrade, and writes after it
//! keep the index in step.
#![cfg(test)]

use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryItem, MemoryStore, ScoredItem, SearchOptions};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::reference::store_copy;
use rusqlite::Connection;

/// Version 5's FTS5 table and triggers, as released.
const V5_FTS: &str = include_str!("fixtures/store-v5-fts.sql");

/// Fills [`V5_FTS`] from the rows and records version 5.
const V5_FILL: &str = "
INSERT INTO memory_fts (memory_fts) VALUES ('rebuild');
INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check');
UPDATE agcore_schema SET version = 5 WHERE component = 'store';
";

const CONTENTS: &[&str] = &[
    "the user prefers rust for systems work",
    "rust memory index with bm25 ranking",
    "python scripts for data cleaning",
    "用户喜欢简洁的回答",
    "记忆系统全文检索",
    "coffee every morning before the standup",
];

const QUERIES: &[&str] = &["rust ranking", "简洁的回答", "coffee note4", "python data"];

/// The names of the FTS5 table, its shadow tables and its triggers.
fn fts_objects(conn: &Connection) -> Vec<String> {
    conn.prepare(
        "SELECT name FROM sqlite_master WHERE name LIKE 'memory_fts%' \
         OR name IN ('memory_items_ai', 'memory_items_ad', 'memory_items_au') ORDER BY name",
    )
    .unwrap()
    .query_map([], |r| r.get(0))
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Each query's hits as (id, score bits), top 20.
async fn hits(store: &dyn MemoryStore) -> Vec<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for query in QUERIES {
        let found = store
            .search(query, &SearchOptions::top_k(20))
            .await
            .unwrap();
        out.push(
            found
                .iter()
                .map(|h| (h.item.id.clone(), h.score.to_bits()))
                .collect(),
        );
    }
    out
}

fn ids(hits: &[ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn version_5_database_drops_the_full_text_table_and_keeps_its_hits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v5.db");
    let db = SqliteDatabase::open(&path).await.unwrap();
    let items = (0..400)
        .map(|n| {
            let text = format!("{} note{}", CONTENTS[n % CONTENTS.len()], n % 11);
            MemoryItem::new(format!("n{n:04}"), text)
        })
        .collect();
    db.store().save_many(items).await.unwrap();
    let before = hits(&db.store()).await;
    assert!(before.iter().all(|h| !h.is_empty()), "{before:?}");
    db.close().await.unwrap();
    drop(db);

    let conn = Connection::open(&path).unwrap();
    assert_eq!(
        fts_objects(&conn),
        Vec::<String>::new(),
        "new files have none"
    );
    conn.execute_batch(V5_FTS).unwrap();
    conn.execute_batch(V5_FILL).unwrap();
    assert_eq!(fts_objects(&conn).len(), 8, "{:?}", fts_objects(&conn));
    drop(conn);

    let db = SqliteDatabase::open(&path).await.unwrap();
    let versions = db.schema_versions().await.unwrap();
    assert!(versions.contains(&("store".to_owned(), 6)), "{versions:?}");
    let store = db.store();
    assert_eq!(hits(&store).await, before, "same hits and scores");
    let listed = store_copy(&store, Some(ContextField::default()))
        .await
        .unwrap();
    let opts = SearchOptions::top_k(20);
    for query in QUERIES {
        let want = listed.exhaustive_search(query, &opts).await.unwrap();
        assert_eq!(ids(&store.search(query, &opts).await.unwrap()), ids(&want));
    }

    // Writes after the upgrade: no trigger names the dropped table.
    store
        .save(MemoryItem::new("n0003", "completely different words"))
        .await
        .unwrap();
    store
        .save(MemoryItem::new("fresh", "different again"))
        .await
        .unwrap();
    store.delete("n0010").await.unwrap();
    let found = store.search("different", &opts).await.unwrap();
    assert_eq!(ids(&found), ["fresh", "n0003"]);
    assert!(store.get("n0010").await.unwrap().is_none());
    assert!(store.integrity_check().await.unwrap().is_empty());
    db.close().await.unwrap();
    drop((store, db));

    assert_eq!(
        fts_objects(&Connection::open(&path).unwrap()),
        Vec::<String>::new()
    );
}
