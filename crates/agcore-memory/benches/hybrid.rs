//! Search latency of `HybridStore` (lexical BM25F + dense vectors of turns and
//! windows, fused), query embedding excluded as far as it can be: the embedder
//! is the feature-hashing one, which takes microseconds.
//!
//! The shape is the eval's: ten conversation stores of 600 turns in sessions of
//! 20 (`support::corpus`), their vectors in one shared in-memory vector store under one namespace
//! each (`shared`), against the same store holding only its own conversation
//! (`alone`). A search should cost its own conversation's size, not everyone's.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::sync::Arc;

use agcore_llm::embedding::{EmbeddingModel, HashingEmbedder};
use agcore_memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore};
use agcore_memory::vector::InMemoryVectors;
use agcore_memory::{InMemoryStore, MemoryStore, SearchOptions};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

mod support;

use support::corpus;

const TURNS: usize = 600;
const CONVERSATIONS: usize = 10;

/// `count` conversation stores sharing one dense index (one namespace each),
/// filled and with every vector written.
async fn stores(count: usize) -> Vec<HybridStore> {
    let embedder: Arc<dyn EmbeddingModel> = Arc::new(HashingEmbedder::new(384));
    let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
    let dense = DenseIndex::new(embedder, vectors, EmbeddingQueueConfig::default()).unwrap();
    let mut out = Vec::new();
    for n in 0..count {
        let inner: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
        let store = HybridStore::new(
            inner,
            Arc::clone(&dense),
            HybridConfig::default().with_namespace(format!("ns{n}")),
        );
        store
            .save_many(corpus(TURNS, n as u64, &format!("c{n}:")))
            .await
            .unwrap();
        out.push(store);
    }
    for store in &out {
        store.flush().await;
    }
    out
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let shared = rt.block_on(stores(CONVERSATIONS));
    let alone = rt.block_on(stores(1));
    let queries: Vec<String> = (0..64)
        .map(|i| {
            format!(
                "{} {} {}",
                support::WORDS[i % support::WORDS.len()],
                support::WORDS[(i * 7 + 3) % support::WORDS.len()],
                support::WORDS[(i * 13 + 5) % support::WORDS.len()]
            )
        })
        .collect();
    let options = SearchOptions::top_k(10);
    let mut group = c.benchmark_group("hybrid_search");
    for (name, store) in [("alone", &alone[0]), ("shared", &shared[0])] {
        let mut i = 0;
        group.bench_function(BenchmarkId::new(name, TURNS), |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                let report = rt
                    .block_on(store.search_explained(&queries[i], &options))
                    .unwrap();
                black_box(report)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
