//! `Storage::vectors` through `agcore::memory::open`: vectors persist in
//! the database, unchanged texts are not embedded again after a restart,
//! another model is refused until `reset_vectors`.
#![cfg(all(feature = "sqlite", feature = "llm"))]

use std::sync::Arc;

use agcore::llm::embedding::{EmbeddingModel, HashingEmbedder};
use agcore::memory::hybrid::{EmbeddingQueueConfig, HybridConfig, HybridStore};
use agcore::memory::vector::VectorFilter;
use agcore::memory::{MemoryError, MemoryItem, MemoryStore, SearchOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_vectors_survive_a_restart_and_refuse_another_model() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("m.db").display());
    let model: Arc<dyn EmbeddingModel> = Arc::new(HashingEmbedder::new(64));

    let storage = agcore::memory::open(&url).await.unwrap();
    assert!(storage.has_persistent_vectors());
    let dense = storage
        .dense_index(Arc::clone(&model), EmbeddingQueueConfig::default())
        .await
        .unwrap();
    let store = HybridStore::new(storage.store(), Arc::clone(&dense), HybridConfig::default());
    for i in 0..20 {
        store
            .save(MemoryItem::new(
                format!("n{i}"),
                format!("note {i} about gardening"),
            ))
            .await
            .unwrap();
    }
    store.flush().await;
    assert_eq!(dense.counts().embedded, 20);
    drop((store, dense, storage));

    // Restart: the vectors are there, a backfill embeds nothing.
    let storage = agcore::memory::open(&url).await.unwrap();
    let dense = storage
        .dense_index(Arc::clone(&model), EmbeddingQueueConfig::default())
        .await
        .unwrap();
    assert_eq!(
        dense
            .vectors()
            .count(&VectorFilter::default())
            .await
            .unwrap(),
        20
    );
    let store = HybridStore::new(storage.store(), Arc::clone(&dense), HybridConfig::default());
    assert_eq!(store.backfill(&Default::default()).await.unwrap(), 20);
    store.flush().await;
    assert_eq!((dense.counts().embedded, dense.counts().skipped), (0, 20));
    let hits = store
        .search("gardening note 7", &SearchOptions::top_k(3))
        .await
        .unwrap();
    assert_eq!(hits[0].item.id, "n7");

    // Another model: refused with a clear error, until the vectors are reset.
    let other: Arc<dyn EmbeddingModel> = Arc::new(HashingEmbedder::new(32));
    let err = storage
        .dense_index(Arc::clone(&other), EmbeddingQueueConfig::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, MemoryError::EmbeddingMismatch { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("hashing-fnv1a-64"), "{err}");
    let vectors = storage.reset_vectors(other.space()).await.unwrap();
    assert_eq!(vectors.count(&VectorFilter::default()).await.unwrap(), 0);
}
