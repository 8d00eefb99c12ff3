//! Query latency of `ContextualBm25` (with and without RM3) beside two
//! baselines, `InMemoryStore::search` (inverted index + BM25) and the
//! linear-scan BM25 of `rank_items`, on the same generated corpus of
//! conversation-like memories (600 turns in 30 sessions, the size of one
//! LoCoMo conversation, and 6,000).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;

use agcore_memory::retriever::{ContextualBm25, ContextualBm25Config, Rm3Config, rank_items};
use agcore_memory::{InMemoryStore, MemoryStore, SearchOptions};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

mod support;

use support::corpus;

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("retriever_query");
    for n in [600_usize, 6_000] {
        let items = corpus(n, 7, "");
        let plain = ContextualBm25::new(items.clone(), ContextualBm25Config::default());
        let rm3 = ContextualBm25::new(
            items.clone(),
            ContextualBm25Config::default().with_rm3(Some(Rm3Config::default())),
        );
        let query = "When did she go camping at the lake with her family?";
        group.bench_with_input(BenchmarkId::new("contextual_bm25", n), &n, |b, _| {
            b.iter(|| black_box(plain.search(black_box(query), 10)));
        });
        group.bench_with_input(BenchmarkId::new("contextual_bm25_rm3", n), &n, |b, _| {
            b.iter(|| black_box(rm3.search(black_box(query), 10)));
        });
        let store = InMemoryStore::new();
        runtime.block_on(store.save_many(items.clone())).unwrap();
        group.bench_with_input(
            BenchmarkId::new("baseline_in_memory_store", n),
            &n,
            |b, _| {
                b.to_async(&runtime).iter(|| async {
                    black_box(
                        store
                            .search(black_box(query), &SearchOptions::top_k(10))
                            .await,
                    )
                });
            },
        );
        group.bench_with_input(
            BenchmarkId::new("baseline_rank_items_bm25", n),
            &n,
            |b, _| {
                b.iter(|| {
                    black_box(rank_items(
                        black_box(query),
                        items.clone(),
                        &SearchOptions::top_k(10),
                    ))
                });
            },
        );
    }
    group.finish();
    let mut group = c.benchmark_group("retriever_build");
    group.sample_size(20);
    for n in [600_usize, 6_000] {
        let items = corpus(n, 7, "");
        group.bench_with_input(BenchmarkId::new("contextual_bm25", n), &n, |b, _| {
            b.iter(|| {
                black_box(ContextualBm25::new(
                    items.clone(),
                    ContextualBm25Config::default(),
                ))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
