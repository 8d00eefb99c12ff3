//! A failing backend write changes nothing: not the backend, not the
//! in-process index.

use std::sync::Arc;

use agcore_memory::long_term::{LongTermBackend, MemoryScope, MemoryType, NewMemory, WeightRules};
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_kv::{BTreeBackend, KvLongTerm, KvStore, Table};
use chrono::Utc;

#[tokio::test]
async fn a_failed_store_write_is_reported_and_leaves_nothing() {
    let backend = BTreeBackend::new();
    let store = KvStore::open(Arc::new(backend.clone()), EvictionConfig::none())
        .await
        .unwrap();
    store.save(MemoryItem::new("a", "绿茶")).await.unwrap();
    backend.fail_writes(true);
    assert!(
        store
            .save(MemoryItem::new("b", "绿茶 乌龙茶"))
            .await
            .is_err()
    );
    assert!(store.delete("a").await.is_err());
    assert!(store.get("b").await.unwrap().is_none());
    assert!(store.get("a").await.unwrap().is_some());
    let hits = store
        .search("绿茶", &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    backend.fail_writes(false);
    assert_eq!(backend.row_count(Table::Items).unwrap(), 1);
}

#[tokio::test]
async fn a_failed_long_term_write_is_rolled_back() {
    let backend = BTreeBackend::new();
    let lt = KvLongTerm::open(Arc::new(backend.clone())).await.unwrap();
    let scope = MemoryScope::new("agent", "用户").unwrap();
    let (rules, now) = (WeightRules::default(), Utc::now());
    let new = |text: &str| NewMemory::new(MemoryType::User, "", text);
    let first = lt
        .save(&scope, new("用户喜欢喝绿茶"), &rules, now)
        .await
        .unwrap();
    backend.fail_writes(true);
    assert!(
        lt.save(&scope, new("用户住在上海"), &rules, now)
            .await
            .is_err()
    );
    assert!(lt.delete(&scope, first.entry.id, now).await.is_err());
    assert!(lt.buffer_append(&scope, "s", "q", "a", now).await.is_err());
    assert!(lt.get(&scope, first.entry.id).await.unwrap().is_some());
    assert!(lt.history(&scope, first.entry.id).await.unwrap().is_empty());
    assert!(lt.buffer_pending(&scope, "s", 10).await.unwrap().is_empty());
    backend.fail_writes(false);
    let second = lt
        .save(&scope, new("用户住在上海"), &rules, now)
        .await
        .unwrap();
    assert_eq!(
        second.entry.id,
        first.entry.id + 1,
        "the counter was rolled back"
    );
    drop(lt);
    let lt = KvLongTerm::open(Arc::new(backend.reopen())).await.unwrap();
    let all = lt.list(&scope, &Default::default()).await.unwrap();
    assert_eq!(all.len(), 2);
}
