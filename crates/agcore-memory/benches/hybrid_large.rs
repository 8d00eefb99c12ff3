//! Hybrid search latency at 100,000 memories, query embedding excluded (the
//! bench's embedder takes microseconds): `HybridStore` over
//! `InMemoryStore`, every memory in a session of 20 so that each has its own
//! vector and a window vector (200,000 vectors in all), memories and queries
//! from the shared Zipf corpus (`testkit::corpus::Corpus`).
//!
//! Two vector indexes over the same memories, measured in one run:
//! - `hnsw`: `InMemoryVectors` as shipped (exact below 20,000 vectors, the
//!   HNSW graph above);
//! - `exact`: the same with an exact scan at every size (the baseline).
//!
//! The embedder (`TopicVectors`) gives each text a vector near one of 1,000
//! topic centres, picked by the text's hash — the clustered distribution of
//! `--bench vectors`, as sentence embeddings cluster by topic. Vectors
//! without such structure are far harder for any graph index: with the
//! feature-hashing embedder (sparse, nearly orthogonal vectors) the graphs
//! returned about 65 % of the exact top 50 by cosine, and with sums of
//! random word vectors (isotropic) about 15 %, at the same latency.
//!
//! For each it prints p50/p99 of the `lexical`, `dense` and `hybrid` views
//! (`HybridStore::view`), top 10, and of the two vector searches alone
//! (own and window vectors, top 50); then how much of the exact store's
//! results the shipped one returns. `AGCORE_BENCH_HYBRID_N` sets the memory
//! count. Run with `cargo bench -p agcore-memory --bench hybrid_large`.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::Instant;

use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingBatch, EmbeddingModel, InputKind, l2_normalize};
use agcore_memory::hybrid::{
    DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore, RetrievalMode,
};
use agcore_memory::vector::{InMemoryVectors, InMemoryVectorsConfig, VectorFilter};
use agcore_memory::{InMemoryStore, MemoryStore, SearchOptions};
use agcore_memory_testkit::corpus::{Corpus, Percentiles, ms, percentiles};
use agcore_memory_testkit::vectors::random_unit_vectors;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const MEMORIES: usize = 100_000;
const SESSION: usize = 20;
const QUERIES: usize = 1_000;
const DIMENSIONS: usize = 384;

/// Topic centres of [`TopicVectors`] and the noise around them: the
/// distribution of `--bench vectors` (1,000 random centres, ±0.08 per
/// component).
const TOPICS: usize = 1_000;
const SPREAD: f32 = 0.08;

/// A synthetic embedding model with topical clusters, as sentence
/// embeddings have: a text's vector is the centre of a topic picked by the
/// text's hash plus noise seeded by it (same text, same vector).
#[derive(Debug)]
struct TopicVectors {
    centres: Vec<Vec<f32>>,
}

impl TopicVectors {
    fn new() -> Self {
        Self {
            centres: random_unit_vectors(TOPICS, DIMENSIONS, 1),
        }
    }

    fn embed_one(&self, text: &str) -> Vec<f32> {
        let seed = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let mut rng = StdRng::seed_from_u64(seed);
        let centre = &self.centres[rng.random_range(0..TOPICS)];
        let mut v: Vec<f32> = centre
            .iter()
            .map(|c| c + SPREAD * rng.random_range(-1.0f32..1.0))
            .collect();
        l2_normalize(&mut v);
        v
    }
}

#[async_trait::async_trait]
impl EmbeddingModel for TopicVectors {
    fn model_id(&self) -> &str {
        "bench-topic-vectors"
    }

    fn dimensions(&self) -> usize {
        DIMENSIONS
    }

    async fn embed(&self, texts: &[String], _kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        Ok(EmbeddingBatch {
            vectors: texts.iter().map(|t| self.embed_one(t)).collect(),
            prompt_tokens: 0,
        })
    }
}

/// A filled store over `config`'s vector index, every vector written.
async fn store(items: &[agcore_memory::MemoryItem], config: InMemoryVectorsConfig) -> HybridStore {
    let embedder: Arc<dyn EmbeddingModel> = Arc::new(TopicVectors::new());
    let vectors = Arc::new(InMemoryVectors::with_config(embedder.space(), config));
    let dense = DenseIndex::new(embedder, vectors, EmbeddingQueueConfig::default()).unwrap();
    let inner: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    let store = HybridStore::new(inner, dense, HybridConfig::default());
    for chunk in items.chunks(10_000) {
        store.save_many(chunk.to_vec()).await.unwrap();
    }
    store.flush().await;
    store
}

async fn measure(store: &HybridStore, mode: RetrievalMode, queries: &[String]) -> Percentiles {
    let view = store.view(mode);
    let options = SearchOptions::top_k(10);
    // One pass to warm caches and any lazily built state.
    for q in queries.iter().take(50) {
        view.search_explained(q, &options).await.unwrap();
    }
    percentiles(queries, |q| {
        let view = &view;
        let options = &options;
        async move {
            std::hint::black_box(view.search_explained(&q, options).await.unwrap());
        }
    })
    .await
}

fn main() {
    let n: usize = std::env::var("AGCORE_BENCH_HYBRID_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MEMORIES);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let corpus = Corpus::new();
    let items: Vec<_> = corpus
        .memories(n, 7)
        .into_iter()
        .enumerate()
        .map(|(i, item)| item.with_metadata(serde_json::json!({ "session": i / SESSION })))
        .collect();
    let queries = corpus.queries(QUERIES, 11);
    let shipped = InMemoryVectorsConfig::default().with_background_builds(false);
    let exact = shipped.with_exact_threshold(usize::MAX);
    println!(
        "hybrid search, {n} memories ({} vectors), top 10, {QUERIES} queries",
        2 * n
    );
    println!(
        "{:<8} {:<8} {:>9} {:>9} {:>9}",
        "index", "view", "p50 ms", "p99 ms", "mean ms"
    );
    let mut hybrid_p50 = Vec::new();
    let mut stores = Vec::new();
    for (name, config) in [("hnsw", shipped), ("exact", exact)] {
        let started = Instant::now();
        stores.push((name, rt.block_on(store(&items, config))));
        println!("{name}: filled in {:.1} s", started.elapsed().as_secs_f64());
    }
    for (name, store) in &stores {
        for (label, mode) in [
            ("lexical", RetrievalMode::Lexical),
            ("dense", RetrievalMode::Dense),
            ("hybrid", RetrievalMode::Hybrid),
        ] {
            let p = rt.block_on(measure(store, mode, &queries));
            println!(
                "{name:<8} {label:<8} {:>9.3} {:>9.3} {:>9.3}",
                ms(p.p50),
                ms(p.p99),
                ms(p.mean)
            );
            if mode == RetrievalMode::Hybrid {
                hybrid_p50.push(ms(p.p50));
            }
        }
        // The vector searches alone (the default namespace and its windows'
        // namespace, `window::window_namespace`), the candidates' k.
        let dense = store.dense().unwrap();
        for (label, namespace) in [("own", ""), ("windows", "#window")] {
            let filter = VectorFilter::namespace(namespace);
            let p = rt.block_on(percentiles(&queries, |q| {
                let filter = &filter;
                async move {
                    std::hint::black_box(dense.nearest(&q, 50, filter).await.unwrap());
                }
            }));
            println!(
                "{name:<8} {label:<8} {:>9.3} {:>9.3} {:>9.3}",
                ms(p.p50),
                ms(p.p99),
                ms(p.mean)
            );
        }
    }
    // What the graphs cost in results: the share of the exact store's
    // hybrid top 10 that the shipped store returns too.
    if let [(_, hnsw), (_, exact)] = &stores[..] {
        let options = SearchOptions::top_k(10);
        let (mut same, mut total) = (0usize, 0usize);
        for q in &queries {
            let got = rt.block_on(hnsw.search_explained(q, &options)).unwrap();
            let want = rt.block_on(exact.search_explained(q, &options)).unwrap();
            total += want.hits.len();
            same += want
                .hits
                .iter()
                .filter(|w| got.hits.iter().any(|g| g.item.id == w.item.id))
                .count();
        }
        println!(
            "hybrid top 10 of the exact store also returned by the shipped one: {:.3}",
            same as f64 / total.max(1) as f64
        );
    }
    // The vector lists alone, as ann-benchmarks counts recall: a returned
    // vector counts when its cosine reaches the exact k-th one (hashed
    // bags of words tie a lot, and any of the tied vectors is as near).
    if let [(_, hnsw), (_, exact)] = &stores[..] {
        let (graph, scan) = (hnsw.dense().unwrap(), exact.dense().unwrap());
        for (label, namespace) in [("own", ""), ("windows", "#window")] {
            let filter = VectorFilter::namespace(namespace);
            let (mut ids, mut near, mut total) = (0usize, 0usize, 0usize);
            for q in &queries {
                let (got, _) = rt.block_on(graph.nearest(q, 50, &filter)).unwrap();
                let (want, _) = rt.block_on(scan.nearest(q, 50, &filter)).unwrap();
                let kth = want.last().map_or(f32::MIN, |h| h.score);
                total += want.len();
                near += got
                    .iter()
                    .filter(|h| h.score >= kth - 1e-6)
                    .count()
                    .min(want.len());
                ids += want
                    .iter()
                    .filter(|w| got.iter().any(|g| g.id == w.id))
                    .count();
            }
            println!(
                "{label} vectors, top 50: recall {:.3} by cosine, {:.3} by id",
                near as f64 / total.max(1) as f64,
                ids as f64 / total.max(1) as f64
            );
        }
    }
    if let [hnsw, exact] = hybrid_p50[..] {
        println!(
            "hybrid p50: hnsw {hnsw:.3} ms, exact {exact:.3} ms ({:.1}× faster)",
            exact / hnsw
        );
    }
}
