//! Behaviour of the SQLite backend beyond the shared conformance suite:
//! persistence across reopen, schema version, full-text details, concurrency.

#![cfg(test)]

use agcore_memory_sqlite::SqliteStore;
use std::sync::Arc;

use agcore_memory::{
    EvictionConfig, MemoryError, MemoryFilter, MemoryItem, MemoryStore, SearchOptions,
};
use agcore_memory_sqlite::Durability;
use chrono::{DateTime, Utc};
use serde_json::json;

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}

fn ids(hits: &[agcore_memory::ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn data_survives_reopen_and_schema_is_versioned() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    {
        let store = SqliteStore::open(&path).await.unwrap();
        let item = MemoryItem::new("k:1", "persistent fact about rust")
            .with_metadata(json!({"kind": "fact", "n": 1, "x": 2.5}))
            .with_created_at(DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap());
        store.save(item).await.unwrap();
        store.save(MemoryItem::new("k:2", "second")).await.unwrap();
        store.delete("k:2").await.unwrap();
    }
    let store = SqliteStore::open(&path).await.unwrap();
    let got = store.get("k:1").await.unwrap().unwrap();
    assert_eq!(got.content, "persistent fact about rust");
    assert_eq!(got.metadata, json!({"kind": "fact", "n": 1, "x": 2.5}));
    assert_eq!(
        got.created_at,
        DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap()
    );
    assert!(store.get("k:2").await.unwrap().is_none());
    assert_eq!(
        ids(&store
            .search("rust", &SearchOptions::default())
            .await
            .unwrap()),
        ["k:1"]
    );
    assert!(store.integrity_check().await.unwrap().is_empty());

    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row(
            "SELECT version FROM agcore_schema WHERE component = 'store'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, 6);
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_newer_schema_or_a_non_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("newer.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let err = SqliteStore::open(&path).await.unwrap_err();
    assert!(
        matches!(err, MemoryError::Storage(ref m) if m.contains("99")),
        "{err}"
    );

    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    assert!(matches!(
        SqliteStore::open(&junk).await,
        Err(MemoryError::Storage(_))
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn save_many_is_all_or_nothing_on_invalid_input() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    let items = vec![
        MemoryItem::new("ok", "fine"),
        MemoryItem::new("", "empty id"),
    ];
    assert!(matches!(
        store.save_many(items).await,
        Err(MemoryError::InvalidInput(_))
    ));
    assert_eq!(store.count(&MemoryFilter::all()).await.unwrap(), 0);
    store.save_many(Vec::new()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn eviction_by_capacity_and_ttl() {
    let store = SqliteStore::builder()
        .eviction(EvictionConfig::capacity(3, 1))
        .open_in_memory()
        .await
        .unwrap();
    for n in 0..6 {
        store
            .save(MemoryItem::new(format!("c{n}"), "x").with_created_at(at(1000 + n)))
            .await
            .unwrap();
    }
    let kept: Vec<String> = store
        .list(&MemoryFilter::all())
        .await
        .unwrap()
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(kept, ["c3", "c4", "c5"]);

    let store = SqliteStore::builder()
        .eviction(EvictionConfig::ttl(3600, 2))
        .open_in_memory()
        .await
        .unwrap();
    store
        .save(MemoryItem::new("old", "x").with_created_at(at(0)))
        .await
        .unwrap();
    assert!(
        store.get("old").await.unwrap().is_some(),
        "checked only every 2 writes"
    );
    store.save(MemoryItem::new("new", "x")).await.unwrap();
    assert!(store.get("old").await.unwrap().is_none());
    assert!(store.get("new").await.unwrap().is_some());
    assert_eq!(store.evict_now().await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_writers_and_readers_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(
        SqliteStore::builder()
            .readers(3)
            .durability(Durability::PowerLoss)
            .open(dir.path().join("c.db"))
            .await
            .unwrap(),
    );
    let mut tasks = Vec::new();
    for w in 0..8 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            for n in 0..50 {
                let id = format!("w{w}:{n}");
                store
                    .save(MemoryItem::new(
                        id.clone(),
                        format!("writer {w} note {n} 记忆"),
                    ))
                    .await
                    .unwrap();
                // Read-your-writes: a committed save is visible to every reader.
                assert!(store.get(&id).await.unwrap().is_some());
                store
                    .search("记忆 note", &SearchOptions::top_k(3))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(store.count(&MemoryFilter::all()).await.unwrap(), 400);
    assert_eq!(
        store
            .count(&MemoryFilter::with_prefix("w3:"))
            .await
            .unwrap(),
        50
    );
    assert!(store.integrity_check().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_memory_name_opens_a_private_in_memory_database() {
    let store = SqliteStore::open(":memory:").await.unwrap();
    assert!(store.path().is_none());
    store
        .save(MemoryItem::new("m", "in memory words"))
        .await
        .unwrap();
    assert!(store.get("m").await.unwrap().is_some());
    assert_eq!(
        ids(&store
            .search("words", &SearchOptions::default())
            .await
            .unwrap()),
        ["m"]
    );
}

#[test]
fn store_and_builder_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<SqliteStore>();
    assert_send_sync::<agcore_memory_sqlite::SqliteStoreBuilder>();
}
