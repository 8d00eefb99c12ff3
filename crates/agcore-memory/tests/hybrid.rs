//! `HybridStore`: embedding off the save path, the content-hash cache, an
//! embedding server that is down, model mismatch, fusion and its explanation.
#![cfg(test)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agcore_llm::embedding::{EmbeddingModel, EmbeddingSpace};
use agcore_memory::hybrid::{
    CutRule, DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore, RetrievalMode,
};
use agcore_memory::retriever::Fusion;
use agcore_memory::vector::{InMemoryVectors, VectorFilter, VectorStore};
use agcore_memory::{
    EvictionConfig, InMemoryStore, MemoryError, MemoryItem, MemoryStore, SearchOptions,
};
use agcore_memory_testkit as testkit;

use crate::support;
use support::{Scripted, TermHashing};

fn queue() -> EmbeddingQueueConfig {
    EmbeddingQueueConfig::default().with_retry_delay(Duration::from_millis(20))
}

fn hybrid(embedder: Arc<Scripted>, config: HybridConfig) -> (HybridStore, Arc<InMemoryVectors>) {
    let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
    let dense = DenseIndex::new(
        embedder,
        Arc::clone(&vectors) as Arc<dyn VectorStore>,
        queue(),
    )
    .unwrap();
    let store = HybridStore::new(Arc::new(InMemoryStore::new()), dense, config);
    (store, vectors)
}

const BRIGHTON: &str = "We drove to Brighton for the weekend";
const QUERY: &str = "the trip to the coast";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dense_finds_what_words_miss_and_explains_it() {
    let model = Scripted::new(&[(BRIGHTON, 3), (QUERY, 3)]);
    let rrf = HybridConfig::default().with_fusion(Fusion::Rrf { k: 60.0 });
    let (store, _) = hybrid(model, rrf);
    store.save(MemoryItem::new("a", BRIGHTON)).await.unwrap();
    store
        .save(MemoryItem::new(
            "b",
            "The coast guard called about the boat",
        ))
        .await
        .unwrap();
    store.flush().await;
    let report = store
        .search_explained(QUERY, &SearchOptions::top_k(2))
        .await
        .unwrap();
    let a = report.results().find(|h| h.item.id == "a").unwrap();
    assert!(a.breakdown.lexical.is_none(), "no shared word");
    assert_eq!(a.breakdown.dense.unwrap().rank, 1);
    assert!((a.breakdown.dense.unwrap().score - 1.0).abs() < 1e-6);
    assert!(
        (a.breakdown.fused - 1.0 / 61.0).abs() < 1e-12,
        "dense rank 1 only"
    );
    // "b" shares "coast": found by its words.
    let b = report.results().find(|h| h.item.id == "b").unwrap();
    assert_eq!(b.breakdown.lexical.unwrap().rank, 1);

    let dense = store.view(RetrievalMode::Dense);
    let report = dense
        .search_explained(QUERY, &SearchOptions::top_k(5))
        .await
        .unwrap();
    assert_eq!(report.results().next().unwrap().item.id, "a");
    let report = store
        .search_explained(QUERY, &SearchOptions::top_k(1))
        .await
        .unwrap();
    assert_eq!(report.results().count(), 1);
    let cut: Vec<_> = report.hits.iter().filter_map(|h| h.breakdown.cut).collect();
    assert_eq!(cut, vec![CutRule::BeyondLimit { limit: 1 }]);

    let lexical = store.view(RetrievalMode::Lexical);
    let hits = lexical
        .search(QUERY, &SearchOptions::top_k(5))
        .await
        .unwrap();
    assert!(hits.iter().all(|h| h.item.id != "a"), "words alone miss it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unchanged_text_is_never_embedded_twice() {
    let model = Scripted::new(&[]);
    let (store, vectors) = hybrid(Arc::clone(&model), HybridConfig::default());
    for i in 0..10 {
        store
            .save(MemoryItem::new(format!("m{i}"), format!("note number {i}")))
            .await
            .unwrap();
    }
    store.flush().await;
    assert_eq!(model.texts.load(Ordering::SeqCst), 10);
    assert_eq!(vectors.count(&VectorFilter::default()).await.unwrap(), 10);
    // The same texts again, and a backfill from a second handle: no model call.
    for i in 0..10 {
        store
            .save(MemoryItem::new(format!("m{i}"), format!("note number {i}")))
            .await
            .unwrap();
    }
    store.flush().await;
    let dense = DenseIndex::new(
        Arc::clone(&model) as Arc<dyn EmbeddingModel>,
        Arc::clone(&vectors) as Arc<dyn VectorStore>,
        queue(),
    )
    .unwrap();
    let again = HybridStore::new(Arc::clone(store.inner()), dense, HybridConfig::default());
    assert_eq!(again.backfill(&Default::default()).await.unwrap(), 10);
    again.flush().await;
    assert_eq!(model.texts.load(Ordering::SeqCst), 10);
    assert_eq!(
        store.queue_counts().skipped + again.queue_counts().skipped,
        20
    );
    // A changed text is embedded again.
    store
        .save(MemoryItem::new("m3", "note number three"))
        .await
        .unwrap();
    store.flush().await;
    assert_eq!(model.texts.load(Ordering::SeqCst), 11);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_down_never_fails_a_save_and_is_retried() {
    let model = Scripted::new(&[]);
    model.down.store(true, Ordering::SeqCst);
    let (store, vectors) = hybrid(Arc::clone(&model), HybridConfig::default());
    store
        .save(MemoryItem::new("x", "rainy afternoon in Lisbon"))
        .await
        .unwrap();
    store.flush().await;
    assert_eq!(store.queue_counts().pending, 1);
    assert!(store.queue_counts().failures >= 1);
    // Found by its words meanwhile; the report says dense was unavailable.
    let report = store
        .search_explained("Lisbon", &SearchOptions::top_k(3))
        .await
        .unwrap();
    assert_eq!(report.results().next().unwrap().item.id, "x");
    assert!(report.dense_unavailable.is_some());
    // Back up: the retry writes the vector.
    model.down.store(false, Ordering::SeqCst);
    for _ in 0..200 {
        if vectors.count(&VectorFilter::default()).await.unwrap() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(vectors.count(&VectorFilter::default()).await.unwrap(), 1);
    store.flush().await;
    assert_eq!(store.queue_counts().pending, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_model_is_refused() {
    let vectors = Arc::new(InMemoryVectors::new(EmbeddingSpace::new("other-model", 16)));
    let err = DenseIndex::new(Scripted::new(&[]), vectors, queue()).unwrap_err();
    assert!(
        matches!(err, MemoryError::EmbeddingMismatch { .. }),
        "{err}"
    );
    assert!(!err.is_recoverable());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thresholds_prefixes_and_deletes() {
    // Tea points mostly elsewhere: cosine 0.3 with the query.
    let model = Scripted::sparse(&[
        (BRIGHTON, vec![(3, 1.0)]),
        (QUERY, vec![(3, 1.0)]),
        ("tea with lemon", vec![(3, 0.3), (5, 0.953_939_2)]),
    ]);
    let config = HybridConfig::default().with_min_similarity(Some(0.5));
    let (store, vectors) = hybrid(model, config);
    store.save(MemoryItem::new("u1:a", BRIGHTON)).await.unwrap();
    store.save(MemoryItem::new("u2:a", BRIGHTON)).await.unwrap();
    store
        .save(MemoryItem::new("u1:t", "tea with lemon"))
        .await
        .unwrap();
    store.flush().await;
    let report = store
        .search_explained(QUERY, &SearchOptions::top_k(5).with_prefix("u1:"))
        .await
        .unwrap();
    let ids: Vec<&str> = report.results().map(|h| h.item.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["u1:a"],
        "other prefix and dissimilar text excluded"
    );
    let tea = report.hits.iter().find(|h| h.item.id == "u1:t").unwrap();
    assert_eq!(
        tea.breakdown.cut,
        Some(CutRule::BelowSimilarity { min: 0.5 })
    );

    let scored = store
        .search(QUERY, &SearchOptions::top_k(5).with_min_score(1.0))
        .await
        .unwrap();
    assert!(scored.is_empty(), "an RRF score never reaches 1.0");

    store.delete("u1:a").await.unwrap();
    assert_eq!(
        vectors.count(&VectorFilter::namespace("")).await.unwrap(),
        2
    );
    let hits = store
        .search(QUERY, &SearchOptions::top_k(5).with_prefix("u1:"))
        .await
        .unwrap();
    assert!(hits.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_store_passes_the_memory_store_conformance_suite() {
    let report = testkit::conformance_report(|eviction: EvictionConfig| async move {
        // Dense hits share an index term with the query (unsigned term
        // hashing, cosine > 0 only then), and the fusion keeps BM25's order
        // (lexical weight 1): the suite's ranking checks hold whether or not
        // the background queue has embedded an item yet, while saves,
        // upserts, deletes and eviction go through the dense side.
        let embedder = Arc::new(TermHashing);
        let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
        let dense = DenseIndex::new(embedder, vectors, queue()).unwrap();
        let config = HybridConfig::default().with_fusion(Fusion::WeightedSum {
            lexical_weight: 1.0,
        });
        Arc::new(HybridStore::new(
            Arc::new(InMemoryStore::with_eviction(eviction)),
            dense,
            config,
        )) as Arc<dyn MemoryStore>
    })
    .await;
    assert!(report.is_success(), "{report}");
}
