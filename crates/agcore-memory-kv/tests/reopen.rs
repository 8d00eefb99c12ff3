//! Write, drop, reopen from the same backing maps: data, ids, history,
//! usage log, buffer and rankings intact.

use std::sync::Arc;

use agcore_memory::long_term::{
    HistoryReason, LongTermBackend, MemoryScope, MemoryType, MemoryUpdate, NewMemory,
    SearchRequest, UsageRecord, WeightRules,
};
use agcore_memory::vector::{EmbeddingSpace, VectorFilter, VectorRecord, VectorStore};
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_kv::{BTreeBackend, KvLongTerm, KvStore, open_vectors};
use chrono::Utc;

fn ranked(hits: &[agcore_memory::ScoredItem]) -> Vec<(String, f64)> {
    hits.iter().map(|h| (h.item.id.clone(), h.score)).collect()
}

#[tokio::test]
async fn the_store_reopens_with_its_items_and_ranking() {
    let backend = BTreeBackend::new();
    let store = KvStore::open(Arc::new(backend.clone()), EvictionConfig::none())
        .await
        .unwrap();
    store
        .save_many(vec![
            MemoryItem::new("zh:1", "用户喜欢喝绿茶，不喜欢咖啡"),
            MemoryItem::new("zh:2", "用户住在上海"),
            MemoryItem::new("en:1", "The user drinks green tea every morning"),
            MemoryItem::new("en:2", "Gone soon"),
        ])
        .await
        .unwrap();
    store.delete("en:2").await.unwrap();
    let options = SearchOptions::top_k(10);
    let before_zh = ranked(&store.search("绿茶", &options).await.unwrap());
    let before_en = ranked(&store.search("green tea", &options).await.unwrap());
    assert_eq!(before_zh.first().map(|h| h.0.as_str()), Some("zh:1"));
    drop(store);

    let store = KvStore::open(Arc::new(backend.reopen()), EvictionConfig::none())
        .await
        .unwrap();
    assert_eq!(store.count(&Default::default()).await.unwrap(), 3);
    assert!(store.get("en:2").await.unwrap().is_none());
    assert_eq!(
        ranked(&store.search("绿茶", &options).await.unwrap()),
        before_zh
    );
    assert_eq!(
        ranked(&store.search("green tea", &options).await.unwrap()),
        before_en
    );
}

#[tokio::test]
async fn long_term_reopens_with_ids_history_usage_and_buffer() {
    let backend = BTreeBackend::new();
    let lt = KvLongTerm::open(Arc::new(backend.clone())).await.unwrap();
    let scope = MemoryScope::new("助手", "用户").unwrap();
    let (rules, now) = (WeightRules::default(), Utc::now());
    let new = |text: &str| NewMemory::new(MemoryType::User, "", text);
    let tea = lt
        .save(&scope, new("用户喜欢喝绿茶"), &rules, now)
        .await
        .unwrap();
    let gone = lt
        .save(&scope, new("temporary note"), &rules, now)
        .await
        .unwrap();
    let id = tea.entry.id;
    let update = MemoryUpdate::new().content("用户喜欢喝乌龙茶");
    lt.update(&scope, id, update, HistoryReason::Update, &rules, now)
        .await
        .unwrap();
    let record = UsageRecord::new("s1", "茶", vec![id], true);
    lt.record_use(&scope, record, &rules, now).await.unwrap();
    lt.delete(&scope, gone.entry.id, now).await.unwrap();
    let turn = lt
        .buffer_append(&scope, "s1", "你好", "你好！", now)
        .await
        .unwrap();
    let request = SearchRequest::default();
    let hits = lt.search(&scope, "乌龙茶", &request).await.unwrap();
    let entry = lt.get(&scope, id).await.unwrap();
    let history = lt.history(&scope, id).await.unwrap();
    let usage = lt.usage_log(&scope, id).await.unwrap();
    drop(lt);

    let lt = KvLongTerm::open(Arc::new(backend.reopen())).await.unwrap();
    assert_eq!(lt.search(&scope, "乌龙茶", &request).await.unwrap(), hits);
    assert_eq!(lt.get(&scope, id).await.unwrap(), entry);
    assert_eq!(lt.history(&scope, id).await.unwrap(), history);
    assert_eq!(history.len(), 1);
    assert_eq!(lt.usage_log(&scope, id).await.unwrap(), usage);
    assert_eq!(lt.history(&scope, gone.entry.id).await.unwrap().len(), 1);
    assert!(lt.get(&scope, gone.entry.id).await.unwrap().is_none());
    assert_eq!(
        lt.buffer_pending(&scope, "s1", 10).await.unwrap(),
        vec![turn.clone()]
    );
    let next = lt.save(&scope, new("新的记忆"), &rules, now).await.unwrap();
    assert_eq!(next.entry.id, gone.entry.id + 1, "ids are not reused");
    let next_turn = lt.buffer_append(&scope, "s1", "q", "a", now).await.unwrap();
    assert_eq!(next_turn.id, turn.id + 1);
    assert_eq!(lt.scopes().await.unwrap(), vec![scope]);
}

#[tokio::test]
async fn vectors_reopen_and_refuse_another_space() {
    let backend = BTreeBackend::new();
    let space = EmbeddingSpace::new("m", 3);
    let store = open_vectors(Arc::new(backend.clone()), space.clone())
        .await
        .unwrap();
    store
        .upsert(vec![
            VectorRecord::new("", "a", vec![1.0, 0.0, 0.0], "h1"),
            VectorRecord::new("记忆", "用户", vec![0.0, 3.0, 4.0], "h2"),
        ])
        .await
        .unwrap();
    assert_eq!(
        store.delete("", &["a".into(), "a".into()]).await.unwrap(),
        1
    );
    let hits = store
        .search(&[0.0, 0.6, 0.8], 5, &VectorFilter::default())
        .await
        .unwrap();
    drop(store);
    let store = open_vectors(Arc::new(backend.reopen()), space)
        .await
        .unwrap();
    let again = store
        .search(&[0.0, 0.6, 0.8], 5, &VectorFilter::default())
        .await
        .unwrap();
    assert_eq!(again, hits);
    assert_eq!(store.count(&VectorFilter::default()).await.unwrap(), 1);
    let other = open_vectors(Arc::new(backend.reopen()), EmbeddingSpace::new("m", 4)).await;
    assert!(matches!(
        other,
        Err(agcore_memory::MemoryError::EmbeddingMismatch { .. })
    ));
}
