//! Everything of one backend as a `Storage`: the store, long-term memory
//! and vectors, with a switch of embedding model.

use std::sync::Arc;

use agcore_memory::long_term::{MemoryScope, MemoryType, NewMemory};
use agcore_memory::vector::{EmbeddingSpace, VectorFilter, VectorRecord};
use agcore_memory::{BackendInfo, EvictionConfig, MemoryItem, SearchOptions};
use agcore_memory_kv::{BTreeBackend, storage};

#[tokio::test]
async fn one_backend_serves_a_whole_storage_and_reopens() {
    let backend = BTreeBackend::new();
    let info = BackendInfo::new("btree", "memory", "test");
    let opened = storage(
        Arc::new(backend.clone()),
        info.clone(),
        EvictionConfig::none(),
    )
    .await
    .unwrap();
    assert!(opened.has_long_term() && opened.has_persistent_vectors());
    let item = MemoryItem::new("note", "用户喜欢喝绿茶");
    opened.store().save(item).await.unwrap();
    let scope = MemoryScope::new("agent", "用户").unwrap();
    let memory = opened.long_term().unwrap();
    let new = NewMemory::new(MemoryType::User, "", "用户住在上海");
    memory.scoped(scope.clone()).save(new).await.unwrap();
    let a = EmbeddingSpace::new("a", 2);
    let vectors = opened.vectors(a.clone()).await.unwrap();
    let record = VectorRecord::new("", "note", vec![1.0, 0.0], "h");
    vectors.upsert(vec![record]).await.unwrap();
    drop((opened, memory, vectors));

    let opened = storage(Arc::new(backend.reopen()), info, EvictionConfig::none())
        .await
        .unwrap();
    let hits = opened
        .store()
        .search("绿茶", &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    let memory = opened.long_term().unwrap().scoped(scope);
    assert_eq!(memory.search("上海", 5).await.unwrap().len(), 1);
    let vectors = opened.vectors(a.clone()).await.unwrap();
    assert_eq!(vectors.count(&VectorFilter::default()).await.unwrap(), 1);
    drop(vectors);
    assert!(opened.vectors(EmbeddingSpace::new("b", 3)).await.is_err());
    let b = opened
        .reset_vectors(EmbeddingSpace::new("b", 3))
        .await
        .unwrap();
    assert_eq!(b.count(&VectorFilter::default()).await.unwrap(), 0);
    assert!(opened.vectors(a).await.is_err(), "the backend now holds b");
}
