//! Long-term memory latency on SQLite: `save` (every save checks the scope
//! for a duplicate) and per-turn `prefetch` (search + `<memory-context>`
//! formatting) with N entries in one (agent, user) scope among 100 scopes,
//! beside baselines in the same group: `get` of one entry by id, the scope
//! search alone (what prefetch adds to it is the rule check and the
//! formatting), and in the printed report the exhaustive scan of the scope
//! that the pruned search is measured against (BM25 over every entry of the
//! scope, in memory: `agcore_memory_testkit::reference::ScopeCopy`, loaded
//! once from the listed entries).
//!
//! N = 10 000 always; set `AGCORE_BENCH_LONG_TERM_100K=1` to add N = 100 000
//! (seeding takes minutes). Before the criterion groups, prints p50/p99 of
//! 500 timed calls of each operation.
//! Goals: save < 1 ms p50; prefetch p99 < 5 ms at 100k.
#![allow(
    missing_docs,
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use agcore_memory_sqlite::SqliteLongTerm;
use std::time::Instant;

use agcore_agent::long_term::{LongTermOptions, prefetch};
use agcore_memory::long_term::{
    InjectConfig, LongTermMemory, MemoryType, NewMemory, ScopedMemory, SearchRequest,
};
use agcore_memory_testkit::reference::ScopeCopy;
use criterion::Criterion;

#[path = "support/long_term.rs"]
mod support;

use support::{TOPICS, percentiles, text};

async fn seed(n: usize, dir: &std::path::Path) -> (LongTermMemory, ScopedMemory, SqliteLongTerm) {
    let (memory, backend) = support::seed(n, dir, "bench").await;
    let target = memory.scope("bench", "user-0").unwrap();
    (memory, target, backend)
}

fn options() -> LongTermOptions {
    let mut inject = InjectConfig::default();
    inject.first_round_empty = false;
    LongTermOptions::new().inject(inject)
}

fn report(rt: &tokio::runtime::Runtime, n: usize, target: &ScopedMemory, backend: &SqliteLongTerm) {
    let opts = options();
    let copy = rt
        .block_on(ScopeCopy::load(backend, target.scope()))
        .unwrap();
    // The exhaustive scan is slow at 100k: fewer samples.
    let mut scan = Vec::new();
    for i in 0..40 {
        let query = format!("what about {} again", TOPICS[i % TOPICS.len()]);
        let t = Instant::now();
        rt.block_on(copy.search(&query, &SearchRequest::top_k(5)))
            .unwrap();
        scan.push(t.elapsed());
    }
    let (mut save, mut pre, mut get, mut search) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..500 {
        let t = Instant::now();
        rt.block_on(target.save(NewMemory::new(MemoryType::User, "n", text(n + i))))
            .unwrap();
        save.push(t.elapsed());
        let query = format!("what about {} again", TOPICS[i % TOPICS.len()]);
        let t = Instant::now();
        let found = rt.block_on(prefetch(target, &opts, &query, 1)).unwrap();
        pre.push(t.elapsed());
        let t = Instant::now();
        rt.block_on(target.search(&query, 5)).unwrap();
        search.push(t.elapsed());
        assert!(found.is_some());
        let t = Instant::now();
        rt.block_on(target.get(1 + (i as i64 % 1000))).unwrap();
        get.push(t.elapsed());
    }
    for (name, samples) in [
        ("get (baseline)", get),
        ("search alone", search),
        ("save", save),
        ("prefetch", pre),
        ("exhaustive scan", scan),
    ] {
        let (p50, p99) = percentiles(samples);
        println!("long_term n={n:>6} {name:<15} p50 {p50:>10.3?}  p99 {p99:>10.3?}");
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut sizes = vec![10_000];
    if std::env::var("AGCORE_BENCH_LONG_TERM_100K").is_ok_and(|v| v == "1") {
        sizes.push(100_000);
    }
    let mut c = Criterion::default().configure_from_args();
    for n in sizes {
        let (_memory, target, backend) = rt.block_on(seed(n, dir.path()));
        report(&rt, n, &target, &backend);
        let opts = options();
        let mut group = c.benchmark_group(format!("long_term_{n}"));
        group.sample_size(30);
        group.bench_function("get_baseline", |b| {
            b.to_async(&rt)
                .iter(|| async { target.get(42).await.unwrap() });
        });
        let mut next = n + 1_000_000;
        group.bench_function("save", |b| {
            b.iter(|| {
                next += 1;
                rt.block_on(target.save(NewMemory::new(MemoryType::User, "n", text(next))))
                    .unwrap()
            });
        });
        group.bench_function("search_alone", |b| {
            b.to_async(&rt).iter(|| async {
                target
                    .search("what about green tea again", 5)
                    .await
                    .unwrap()
            });
        });
        group.bench_function("prefetch", |b| {
            b.to_async(&rt).iter(|| async {
                prefetch(&target, &opts, "what about green tea again", 1)
                    .await
                    .unwrap()
            });
        });
        group.finish();
    }
    c.final_summary();
}
