//! The cost of an HNSW rebuild to the callers of [`InMemoryVectors`]:
//! 100,000 clustered 384-d vectors (`AGCORE_BENCH_VECTORS` overrides the
//! count), then one call deleting 30 % of them, which makes a rebuild due.
//! Measured both ways, in the same run: graphs built inline by that call
//! (`background_builds = false`, the baseline) and in the background (the
//! default): how long the triggering write takes, and the search latency
//! p50/p99 of the queries answered while the new graph is built.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

use std::time::{Duration, Instant};

use agcore_llm::embedding::EmbeddingSpace;
use agcore_memory::vector::{
    InMemoryVectors, InMemoryVectorsConfig, VectorFilter, VectorRecord, VectorStore,
};
use agcore_memory_testkit::vectors::{clustered_unit_vectors, random_unit_vectors};

const D: usize = 384;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn run(background: bool, n: usize) {
    let centres = random_unit_vectors(1_000, D, 1);
    let records: Vec<VectorRecord> = clustered_unit_vectors(n, &centres, 0.08, 2)
        .into_iter()
        .enumerate()
        .map(|(i, v)| VectorRecord::new("n", format!("{i:07}"), v, ""))
        .collect();
    let queries = clustered_unit_vectors(2_000, &centres, 0.08, 3);
    let config = InMemoryVectorsConfig::default().with_background_builds(background);
    let store = InMemoryVectors::with_config(EmbeddingSpace::new("bench", D), config);
    let started = Instant::now();
    store.upsert(records).await.unwrap();
    let returned = started.elapsed();
    store.rebuilt().await.unwrap();
    let ready = started.elapsed();
    let doomed: Vec<String> = (0..n)
        .filter(|i| i % 10 < 3)
        .map(|i| format!("{i:07}"))
        .collect();
    let started = Instant::now();
    store.delete("n", &doomed).await.unwrap();
    let delete = started.elapsed();
    let mut during = Vec::new();
    let mut q = 0;
    while store.is_rebuilding().unwrap() {
        let t = Instant::now();
        store
            .search(&queries[q % queries.len()], 10, &VectorFilter::default())
            .await
            .unwrap();
        during.push(t.elapsed());
        q += 1;
    }
    store.rebuilt().await.unwrap();
    let rebuilt = started.elapsed();
    during.sort();
    let searches = if during.is_empty() {
        "no search could run while the graph was rebuilt (the write held the index)".to_owned()
    } else {
        format!(
            "{} searches while rebuilding: p50 {:.2?}, p99 {:.2?}",
            during.len(),
            percentile(&during, 0.5),
            percentile(&during, 0.99)
        )
    };
    println!(
        "{}: {n} x {D}-d: first upsert returned in {returned:.2?}, graph ready after {ready:.2?}; \
         deleting 30 % returned in {delete:.2?}, new graph in place after {rebuilt:.2?}; {searches}",
        if background {
            "background builds"
        } else {
            "inline builds (baseline)"
        }
    );
}

fn main() {
    let n: usize = std::env::var("AGCORE_BENCH_VECTORS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        run(false, n).await;
        run(true, n).await;
    });
}
