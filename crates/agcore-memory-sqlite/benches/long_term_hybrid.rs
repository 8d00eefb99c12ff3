//! Long-term memory on SQLite with dense retrieval: a hybrid prefetch
//! (`ScopedMemory::search`, top 5: BM25 + the nearest vectors, fused) in one
//! scope of 600 entries, the size of one long conversation's facts.
//!
//! The embedder is the feature-hashing one (microseconds), so the figure is
//! the search itself: the lexical query, the vector scan and reading the
//! dense candidates the lexical list did not bring.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::sync::Arc;

use agcore_llm::embedding::{EmbeddingModel, HashingEmbedder};
use agcore_memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig};
use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScopedMemory};
use agcore_memory::vector::VectorStore;
use agcore_memory_sqlite::{SqliteDatabase, VectorTables};
use agcore_memory_testkit::corpus::Corpus;
use criterion::{Criterion, criterion_group, criterion_main};

const ENTRIES: usize = 600;

async fn seeded(dir: &tempfile::TempDir, corpus: &Corpus) -> ScopedMemory {
    let db = SqliteDatabase::open(dir.path().join("hybrid.db"))
        .await
        .unwrap();
    let embedder: Arc<dyn EmbeddingModel> = Arc::new(HashingEmbedder::new(384));
    let vectors: Arc<dyn VectorStore> = Arc::new(db.vectors(embedder.space()).await.unwrap());
    let index = DenseIndex::new(embedder, vectors, EmbeddingQueueConfig::default()).unwrap();
    let memory =
        LongTermMemory::new(db.long_term()).with_dense(Arc::clone(&index), HybridConfig::default());
    let scope = memory.scope("bench", "user").unwrap();
    for item in corpus.memories(ENTRIES, 11) {
        scope
            .save(NewMemory::new(MemoryType::User, "n", item.content))
            .await
            .unwrap();
    }
    index.flush().await;
    scope
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let corpus = Corpus::new();
    let dir = tempfile::tempdir().unwrap();
    let scope = rt.block_on(seeded(&dir, &corpus));
    let queries = corpus.queries(256, 3);
    let mut i = 0_usize;
    c.bench_function("long_term_hybrid_sqlite/prefetch/600", |b| {
        b.iter(|| {
            i += 1;
            let hits = rt
                .block_on(scope.search(&queries[i % queries.len()], 5))
                .unwrap();
            black_box(hits)
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
