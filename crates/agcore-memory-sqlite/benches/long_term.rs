//! Long-term memory on SQLite: save and prefetch (`ScopedMemory::search`,
//! top 5) latency with one scope of N entries among 100 scopes, the shape of
//! an agent with one heavy user.
//!
//! Criterion times a save and a prefetch at 10k entries. The report after it
//! interleaves 2,000 saves and 2,000 prefetches at each size (10k, 100k) and
//! prints p50/p99/p99.9 for the default background WAL checkpoint beside
//! SQLite's automatic checkpoint (the baseline, measured in the same run),
//! with ratios (baseline / default). `cargo bench -p agcore-memory-sqlite
//! --bench long_term -- report` runs only the report.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation
)]

use std::time::{Duration, Instant};

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScopedMemory};
use agcore_memory_sqlite::SqliteDatabase;
use agcore_memory_testkit::corpus::{Corpus, ms, sizes};
use criterion::Criterion;
use tokio::runtime::Runtime;

const OTHER_SCOPES: usize = 99;
const MIXED_OPS: usize = 2_000;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A fresh database with 99 small scopes and `n` entries in the returned one.
async fn seeded(
    dir: &tempfile::TempDir,
    n: usize,
    background: bool,
    corpus: &Corpus,
) -> ScopedMemory {
    let db = SqliteDatabase::builder()
        .background_checkpoint(background)
        .open(dir.path().join(format!("lt-{n}-{background}.db")))
        .await
        .unwrap();
    let memory = LongTermMemory::new(db.long_term());
    for s in 0..OTHER_SCOPES {
        let scope = memory.scope("bench", format!("user-{s}")).unwrap();
        for item in corpus.memories(20, s as u64) {
            scope
                .save(NewMemory::new(MemoryType::User, "n", item.content))
                .await
                .unwrap();
        }
    }
    let target = memory.scope("bench", "heavy").unwrap();
    for item in corpus.memories(n, 7) {
        target
            .save(NewMemory::new(MemoryType::User, "n", item.content))
            .await
            .unwrap();
    }
    target
}

struct Tail {
    p50: f64,
    p99: f64,
    p999: f64,
}

fn tail(mut times: Vec<Duration>) -> Tail {
    times.sort();
    let at = |q: f64| ms(times[((times.len() - 1) as f64 * q).round() as usize]);
    Tail {
        p50: at(0.5),
        p99: at(0.99),
        p999: at(0.999),
    }
}

/// 2,000 saves of new content interleaved with 2,000 prefetches.
async fn mixed(scope: &ScopedMemory, corpus: &Corpus) -> (Tail, Tail) {
    let fresh = corpus.memories(MIXED_OPS, 99);
    let queries = corpus.queries(MIXED_OPS, 5);
    let (mut saves, mut searches) = (Vec::new(), Vec::new());
    for (item, query) in fresh.into_iter().zip(&queries) {
        let started = Instant::now();
        scope
            .save(NewMemory::new(
                MemoryType::User,
                "n",
                format!("new: {}", item.content),
            ))
            .await
            .unwrap();
        saves.push(started.elapsed());
        let started = Instant::now();
        scope.search(query, 5).await.unwrap();
        searches.push(started.elapsed());
    }
    (tail(saves), tail(searches))
}

fn criterion_groups(c: &mut Criterion, rt: &Runtime, corpus: &Corpus) {
    if std::env::args().any(|a| a == "report") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scope = rt.block_on(seeded(&dir, 10_000, true, corpus));
    let queries = corpus.queries(256, 3);
    let mut group = c.benchmark_group("long_term_sqlite");
    let mut i = 0_usize;
    group.bench_function("save/10000", |b| {
        b.iter(|| {
            i += 1;
            let text = format!("bench save {i}: the user mentioned item {i}");
            rt.block_on(scope.save(NewMemory::new(MemoryType::User, "n", text)))
                .unwrap();
        });
    });
    let mut q = 0_usize;
    group.bench_function("prefetch/10000", |b| {
        b.iter(|| {
            q += 1;
            rt.block_on(scope.search(&queries[q % queries.len()], 5))
                .unwrap();
        });
    });
    group.finish();
}

fn report(rt: &Runtime, corpus: &Corpus) {
    println!(
        "\n== report: long-term memory on SQLite, {MIXED_OPS} saves + {MIXED_OPS} prefetches (top 5) in one scope among 100 =="
    );
    println!(
        "   baseline = SQLite's automatic checkpoint; ratio = baseline / default (background checkpoint)"
    );
    for n in sizes() {
        let dir = tempfile::tempdir().unwrap();
        let mut rows = Vec::new();
        for background in [true, false] {
            let scope = rt.block_on(seeded(&dir, n, background, corpus));
            rows.push(rt.block_on(mixed(&scope, corpus)));
        }
        let [(save, search), (base_save, base_search)] = [&rows[0], &rows[1]];
        for (what, new, old) in [("save", save, base_save), ("prefetch", search, base_search)] {
            println!(
                "n={n}: {what:8} p50 {:.3} ms p99 {:.3} ms p99.9 {:.3} ms | baseline p50 {:.3} p99 {:.3} p99.9 {:.3} ms | ratio p50 {:.2}x p99 {:.2}x p99.9 {:.2}x",
                new.p50,
                new.p99,
                new.p999,
                old.p50,
                old.p99,
                old.p999,
                old.p50 / new.p50,
                old.p99 / new.p99,
                old.p999 / new.p999
            );
        }
    }
}

fn main() {
    let rt = runtime();
    let corpus = Corpus::new();
    let mut c = Criterion::default().configure_from_args();
    criterion_groups(&mut c, &rt, &corpus);
    c.final_summary();
    // Only in a real bench run (not `cargo test --benches`); a criterion
    // filter of `report` skips the groups above (no id matches it).
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--list") {
        report(&rt, &corpus);
    }
}
