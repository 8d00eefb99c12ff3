//! The public vector suite against `RedisVectors` on a real Redis server
//! (each store under a fresh key prefix), including reopening the prefix
//! (persistence and embedding-space mismatch) and resetting it to another
//! embedding space.
#![cfg(test)]

use crate::support;

use std::sync::{Arc, Mutex};

use agcore_memory::vector::{EmbeddingSpace, VectorFilter, VectorRecord, VectorStore};
use agcore_memory::{EvictionConfig, MemoryError, MemoryItem, MemoryStore};
use agcore_memory_redis::{RedisStore, VectorTables};
use agcore_memory_testkit::vectors;

async fn reopen(url: String, prefix: String, space: EmbeddingSpace) -> vectors::OpenResult {
    let store = RedisStore::builder().prefix(prefix).open(&url).await?;
    Ok(Arc::new(store.vectors(space).await?) as Arc<dyn VectorStore>)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_vectors_pass_the_suite_and_the_persistence_checks() {
    let Some(url) = support::url() else { return };
    let current = Arc::new(Mutex::new(String::new()));
    let fresh = |space: EmbeddingSpace| {
        let url = url.clone();
        let current = Arc::clone(&current);
        async move {
            let store = support::fresh(&url, "vec", EvictionConfig::none()).await;
            *current.lock().unwrap() = store.prefix().to_owned();
            Ok(Arc::new(store.vectors(space).await?) as Arc<dyn VectorStore>)
        }
    };
    let again = |space| reopen(url.clone(), current.lock().unwrap().clone(), space);
    let report = vectors::vector_conformance_report(fresh).await;
    let persistence = vectors::vector_persistence_report(fresh, again).await;
    support::drop_keys(&url, "vec");
    assert!(report.is_success(), "{report}");
    assert!(persistence.is_success(), "{persistence}");
    assert_eq!(persistence.passed.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_vectors_switches_the_space_and_keeps_the_items() {
    let Some(url) = support::url() else { return };
    let a = EmbeddingSpace::new("model-a", 4);
    let b = EmbeddingSpace::new("model-b", 3);
    let store = support::fresh(&url, "vecreset", EvictionConfig::none()).await;
    let prefix = store.prefix().to_owned();
    store
        .save(MemoryItem::new("item", "正文 text"))
        .await
        .unwrap();
    let vectors = store.vectors(a.clone()).await.unwrap();
    vectors
        .upsert(vec![
            VectorRecord::new("", "x", vec![1.0, 0.0, 0.0, 0.0], "h1"),
            VectorRecord::new("记忆", "用户😀", vec![0.0, 1.0, 0.0, 0.0], "h2"),
        ])
        .await
        .unwrap();
    let reset = store.reset_vectors(b.clone()).await.unwrap();
    let empty = reset.count(&VectorFilter::default()).await.unwrap();
    reset
        .upsert(vec![VectorRecord::new("", "y", vec![0.0, 0.0, 1.0], "h3")])
        .await
        .unwrap();
    let again = reopen(url.clone(), prefix.clone(), b.clone()).await;
    let old = reopen(url.clone(), prefix, a).await;
    let item = store.get("item").await;
    support::drop_keys(&url, "vecreset");
    assert_eq!(reset.space(), &b);
    assert_eq!(empty, 0);
    let again = again.unwrap();
    assert_eq!(again.count(&VectorFilter::default()).await.unwrap(), 1);
    let hashes = again
        .content_hashes("", &["y".to_owned(), "x".to_owned()])
        .await
        .unwrap();
    assert_eq!(hashes, vec![Some("h3".to_owned()), None]);
    assert!(matches!(old, Err(MemoryError::EmbeddingMismatch { .. })));
    assert!(item.unwrap().is_some(), "the store's items are not vectors");
}
