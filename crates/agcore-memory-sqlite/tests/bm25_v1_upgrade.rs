//! Version 1 → 2 of the impact-ordered BM25 index (blocks keyed by exact
//! document length instead of eight-length ranges): a file written with
//! version-1 blocks — long-term memory and store rows in one database —
//! opens with every search ranking as before.
#![cfg(test)]

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScopedMemory};
use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::{SqliteLongTerm, SqliteStore};
use rusqlite::Connection;

const WORDS: [&str; 12] = [
    "tea", "green", "rust", "compiler", "hiking", "jazz", "garden", "roses", "chess", "python",
    "database", "记忆",
];

/// Text `i`: between 2 and 30 words, so blocks span many lengths.
fn text(i: usize) -> String {
    (0..2 + i % 29)
        .map(|w| WORDS[(i * 7 + w * w) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

const QUERIES: [&str; 5] = [
    "green tea",
    "rust compiler",
    "jazz garden roses",
    "记忆",
    "chess python database",
];

/// Rewrites the file's blocks in the version-1 layout (`lenb = len >> 3`,
/// several lengths under one key) and records the `bm25` component as version 1.
fn downgrade_to_v1(path: &std::path::Path) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE bm25_blocks_v1 (
             scope INTEGER NOT NULL, term TEXT NOT NULL, tfb INTEGER NOT NULL,
             lenb INTEGER NOT NULL, first_doc INTEGER NOT NULL, last_doc INTEGER NOT NULL,
             postings BLOB NOT NULL,
             PRIMARY KEY (scope, term, tfb, lenb, first_doc)) WITHOUT ROWID;
         INSERT INTO bm25_blocks_v1
             SELECT scope, term, tfb, len >> 3, first_doc, last_doc, postings FROM bm25_blocks;
         DROP TABLE bm25_blocks;
         ALTER TABLE bm25_blocks_v1 RENAME TO bm25_blocks;
         UPDATE agcore_schema SET version = 1 WHERE component = 'bm25';
         COMMIT;",
    )
    .unwrap();
    let mixed: i64 = conn
        .query_row(
            "SELECT count(*) FROM (SELECT 1 FROM bm25_blocks GROUP BY scope, term, tfb, lenb \
             HAVING count(*) > 1)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(mixed > 0, "some version-1 keys hold several blocks");
}

fn bm25_version(path: &std::path::Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT version FROM agcore_schema WHERE component = 'bm25'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

/// The top 20 of every query, long-term then store, as (id, score).
async fn rankings(scope: &ScopedMemory, store: &SqliteStore) -> Vec<Vec<(String, f64)>> {
    let mut out = Vec::new();
    for q in QUERIES {
        let hits = scope.search(q, 20).await.unwrap();
        out.push(
            hits.iter()
                .map(|h| (h.entry.id.to_string(), h.score))
                .collect(),
        );
        let hits = store.search(q, &SearchOptions::top_k(20)).await.unwrap();
        out.push(hits.iter().map(|h| (h.item.id.clone(), h.score)).collect());
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_version_1_index_upgrades_and_ranks_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");

    let backend = SqliteLongTerm::open(&path).await.unwrap();
    let memory = LongTermMemory::new(backend.clone());
    let scope = memory.scope("agent", "alice").unwrap();
    for i in 0..1500 {
        scope
            .save(NewMemory::new(MemoryType::User, format!("n{i}"), text(i)))
            .await
            .unwrap();
    }
    let store = SqliteStore::open(&path).await.unwrap();
    let items: Vec<MemoryItem> = (0..1500)
        .map(|i| MemoryItem::new(format!("item-{i}"), text(i + 3)))
        .collect();
    store.save_many(items).await.unwrap();

    let before = rankings(&scope, &store).await;
    memory.close().await.unwrap();
    drop((scope, memory, backend, store));

    downgrade_to_v1(&path);
    assert_eq!(bm25_version(&path), 1);

    let backend = SqliteLongTerm::open(&path).await.unwrap();
    assert_eq!(bm25_version(&path), 3, "through version 2 to the latest");
    let memory = LongTermMemory::new(backend.clone());
    let scope = memory.scope("agent", "alice").unwrap();
    let store = SqliteStore::open(&path).await.unwrap();
    let after = rankings(&scope, &store).await;
    assert_eq!(before, after);
    assert!(before.iter().all(|hits| hits.len() == 20));
}
