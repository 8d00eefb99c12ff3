//! Vector search at scale: exact [`FlatIndex`] scan against the HNSW graph
//! ([`HnswIndex`], default parameters) on clustered unit vectors (1,000
//! random centres, 384 dimensions, 100,000 vectors; `AGCORE_BENCH_VECTORS`
//! overrides the count).
//!
//! Besides the criterion timings it prints a report: graph build time,
//! search latency p50/p99 of both over 300 queries and their ratio, and
//! recall@10 of the graph against the exact scan (plain and with a
//! namespace filter passing half of the vectors).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use agcore_memory::vector::{FlatIndex, HnswConfig, HnswIndex, VectorKey, rank_order};
use agcore_memory_testkit::vectors::{clustered_unit_vectors, random_unit_vectors};
use criterion::{Criterion, criterion_group, criterion_main};

const D: usize = 384;
const K: usize = 10;
const SPREAD: f32 = 0.08;

struct Fixture {
    flat: FlatIndex,
    hnsw: HnswIndex,
    queries: Vec<Vec<f32>>,
}

fn fixture() -> Fixture {
    let n: usize = std::env::var("AGCORE_BENCH_VECTORS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let centres = random_unit_vectors(1_000, D, 1);
    let mut flat = FlatIndex::new(D);
    for (i, v) in clustered_unit_vectors(n, &centres, SPREAD, 2)
        .into_iter()
        .enumerate()
    {
        flat.upsert(VectorKey::new(format!("n{}", i % 2), format!("{i:07}")), &v);
    }
    let queries = clustered_unit_vectors(300, &centres, SPREAD, 3);
    let started = Instant::now();
    let hnsw = HnswIndex::build(HnswConfig::default(), &flat);
    let build = started.elapsed();
    println!("vectors: {n} x {D}-d clustered; HNSW build {build:.2?} (M 16, efConstruction 100)");
    Fixture {
        flat,
        hnsw,
        queries,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn latencies(queries: &[Vec<f32>], mut search: impl FnMut(&[f32])) -> (Duration, Duration) {
    let mut times: Vec<Duration> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            search(q);
            t.elapsed()
        })
        .collect();
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

fn report(f: &Fixture) {
    let all = |_: &VectorKey| true;
    let half = |k: &VectorKey| k.namespace == "n1";
    let (e50, e99) = latencies(&f.queries, |q| {
        black_box(f.flat.search(q, K, all));
    });
    let (h50, h99) = latencies(&f.queries, |q| {
        black_box(f.hnsw.search(q, K, 1.0, &all));
    });
    println!(
        "search k={K}: exact p50 {e50:.2?} p99 {e99:.2?}; HNSW p50 {h50:.2?} p99 {h99:.2?}; \
         exact/HNSW p50 {:.1}x",
        e50.as_secs_f64() / h50.as_secs_f64()
    );
    for (name, share, filter) in [
        ("all", 1.0, &all as &(dyn Fn(&VectorKey) -> bool + Sync)),
        ("namespace n1", 0.5, &half),
    ] {
        let mut found = 0;
        let mut total = 0;
        for q in &f.queries {
            let want = f.flat.search(q, K, filter);
            let mut got = f.hnsw.search(q, K, share, filter);
            got.sort_by(|a, b| rank_order(a.0, &a.1, b.0, &b.1));
            got.truncate(K);
            total += want.len();
            found += want
                .iter()
                .filter(|(_, w)| got.iter().any(|(_, g)| g == w))
                .count();
        }
        println!(
            "recall@{K} of HNSW vs exact ({name}): {:.4}",
            found as f64 / total as f64
        );
    }
}

fn bench(c: &mut Criterion) {
    let f = fixture();
    report(&f);
    let mut group = c.benchmark_group("vectors_100k_384d");
    group.sample_size(30);
    let mut i = 0;
    group.bench_function("exact_top10", |b| {
        b.iter(|| {
            i = (i + 1) % f.queries.len();
            black_box(f.flat.search(&f.queries[i], K, |_| true))
        })
    });
    group.bench_function("hnsw_top10", |b| {
        b.iter(|| {
            i = (i + 1) % f.queries.len();
            black_box(f.hnsw.search(&f.queries[i], K, 1.0, &|_: &VectorKey| true))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
