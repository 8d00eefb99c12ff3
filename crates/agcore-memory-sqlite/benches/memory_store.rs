//! Memory store benchmarks: insert throughput (single and batched) and search
//! latency for `InMemoryStore` and `SqliteStore`, each pruned top-k search
//! beside baselines in the same group: the exhaustive scoring of every
//! match in memory (`InMemoryStore::exhaustive_search`: term-at-a-time
//! accumulation, the ranking both pruned searches equal) and, for each
//! store, a linear scan (list every candidate, rank with BM25: the trait's
//! default `search`).
//!
//! Sizes: 10k and 100k short memories; 1M with `AGCORE_BENCH_1M=1`. Data is
//! generated from a seed (see `support`); SQLite datasets are cached in the
//! temp dir. After the criterion groups, a report prints search p50/p99 over
//! many queries and one-shot insert rates, with ratios to the baselines (the
//! exhaustive one for the in-memory store), then
//! the same memories as turns of sessions in SQLite with and without the
//! context field (`support/sessions.rs`)
//! (`cargo bench -p agcore-memory-sqlite --bench memory_store -- report`
//! runs only it).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation
)]

#[path = "support/sessions.rs"]
mod sessions;
mod support;

use agcore_memory_sqlite::SqliteStore;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_memory::retriever::rank_items;
use agcore_memory::{InMemoryStore, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_testkit::corpus::Corpus;
use criterion::{BenchmarkId, Criterion, Throughput};
use support::{cached_sqlite, ms, percentiles, sizes};
use tokio::runtime::Runtime;

const TOP_K: usize = 10;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn fill(store: &dyn MemoryStore, items: &[MemoryItem]) {
    for chunk in items.chunks(10_000) {
        store.save_many(chunk.to_vec()).await.unwrap();
    }
}

async fn fresh_sqlite(dir: &tempfile::TempDir, tag: &str) -> SqliteStore {
    SqliteStore::open(dir.path().join(format!("{tag}.db")))
        .await
        .unwrap()
}

/// The trait's default search path: list every candidate, rank with BM25.
async fn linear_scan(store: &dyn MemoryStore, query: &str) -> usize {
    let items = store.list(&MemoryFilter::all()).await.unwrap();
    rank_items(query, items, &SearchOptions::top_k(TOP_K))
        .unwrap()
        .len()
}

fn insert_batched(c: &mut Criterion, rt: &Runtime, corpus: &Corpus) {
    let mut group = c.benchmark_group("insert_batched");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in [10_000, 100_000] {
        let items = corpus.memories(n, 7);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("in_memory", n), &items, |b, items| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let store = InMemoryStore::new();
                        let started = Instant::now();
                        fill(&store, items).await;
                        total += started.elapsed();
                    }
                    total
                })
            });
        });
        group.bench_with_input(BenchmarkId::new("sqlite", n), &items, |b, items| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let dir = tempfile::tempdir().unwrap();
                    let mut total = Duration::ZERO;
                    for i in 0..iters {
                        let store = fresh_sqlite(&dir, &format!("b{i}")).await;
                        let started = Instant::now();
                        fill(&store, items).await;
                        total += started.elapsed();
                    }
                    total
                })
            });
        });
    }
    group.finish();
}

fn insert_single(c: &mut Criterion, rt: &Runtime, corpus: &Corpus) {
    let mut group = c.benchmark_group("insert_single");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    let n = 5_000;
    let items = corpus.memories(n, 11);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("in_memory", n), |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let store = InMemoryStore::new();
                    let started = Instant::now();
                    for item in &items {
                        store.save(item.clone()).await.unwrap();
                    }
                    total += started.elapsed();
                }
                total
            })
        });
    });
    for tasks in [1usize, 8] {
        group.bench_function(BenchmarkId::new(format!("sqlite_{tasks}_tasks"), n), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let dir = tempfile::tempdir().unwrap();
                    let mut total = Duration::ZERO;
                    for i in 0..iters {
                        let store = Arc::new(fresh_sqlite(&dir, &format!("s{i}")).await);
                        let started = Instant::now();
                        let handles: Vec<_> = items
                            .chunks(n / tasks)
                            .map(|chunk| {
                                let store = Arc::clone(&store);
                                let chunk = chunk.to_vec();
                                tokio::spawn(async move {
                                    for item in chunk {
                                        store.save(item).await.unwrap();
                                    }
                                })
                            })
                            .collect();
                        for h in handles {
                            h.await.unwrap();
                        }
                        total += started.elapsed();
                    }
                    total
                })
            });
        });
    }
    group.finish();
}

/// Times `run` on `iters` queries, cycling through `queries`.
fn time_queries<'q, F, Fut>(
    b: &mut criterion::Bencher<'_>,
    rt: &Runtime,
    queries: &'q [String],
    mut run: F,
) where
    F: FnMut(&'q str) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    b.iter_custom(|iters| {
        rt.block_on(async {
            let started = Instant::now();
            for i in 0..iters as usize {
                run(&queries[i % queries.len()]).await;
            }
            started.elapsed()
        })
    });
}

fn search(c: &mut Criterion, rt: &Runtime, corpus: &Corpus) {
    let queries = corpus.queries(200, 99);
    for n in sizes() {
        let items = corpus.memories(n, 7);
        let memory = InMemoryStore::new();
        rt.block_on(fill(&memory, &items));
        drop(items);
        let sqlite = rt.block_on(cached_sqlite(corpus, n));
        let mut group = c.benchmark_group(format!("search_{n}"));
        group.sample_size(10).warm_up_time(Duration::from_secs(1));
        let opts = SearchOptions::top_k(TOP_K);
        let (memory, sqlite, opts) = (&memory, &sqlite, &opts);
        group.bench_function("in_memory_max_score", |b| {
            time_queries(b, rt, &queries, |q| async move {
                memory.search(q, opts).await.unwrap();
            });
        });
        group.bench_function("in_memory_exhaustive", |b| {
            time_queries(b, rt, &queries, |q| async move {
                memory.exhaustive_search(q, opts).await.unwrap();
            });
        });
        group.bench_function("sqlite_impact_topk", |b| {
            time_queries(b, rt, &queries, |q| async move {
                sqlite.search(q, opts).await.unwrap();
            });
        });
        // A linear scan of 1M items takes seconds per query: the report
        // measures a few of them instead.
        if n <= 100_000 {
            group.bench_function("in_memory_linear_scan", |b| {
                time_queries(b, rt, &queries, |q| async move {
                    linear_scan(memory, q).await;
                });
            });
            group.bench_function("sqlite_linear_scan", |b| {
                time_queries(b, rt, &queries, |q| async move {
                    linear_scan(sqlite, q).await;
                });
            });
        }
        group.finish();
    }
}

/// One-shot insert rates and search p50/p99 over many queries, with ratios.
fn report(rt: &Runtime, corpus: &Corpus) {
    println!("\n== report (p50/p99 over the query set; ratio = baseline / indexed) ==");
    let queries = corpus.queries(500, 1234);
    for n in sizes() {
        let items = corpus.memories(n, 7);
        rt.block_on(async {
            let memory = InMemoryStore::new();
            let started = Instant::now();
            fill(&memory, &items).await;
            let mem_rate = n as f64 / started.elapsed().as_secs_f64();
            let dir = tempfile::tempdir().unwrap();
            let fresh = fresh_sqlite(&dir, "report").await;
            let started = Instant::now();
            fill(&fresh, &items).await;
            let sql_rate = n as f64 / started.elapsed().as_secs_f64();
            drop(fresh);
            println!(
                "n={n}: batched insert in_memory {mem_rate:.0}/s, sqlite {sql_rate:.0}/s (sqlite/in_memory {:.2})",
                sql_rate / mem_rate
            );
            drop(items);
            let sqlite = cached_sqlite(corpus, n).await;
            let opts = SearchOptions::top_k(TOP_K);
            let mem = percentiles(&queries, |q| {
                let (memory, opts) = (&memory, &opts);
                async move {
                    memory.search(&q, opts).await.unwrap();
                }
            })
            .await;
            let mem_all = percentiles(&queries, |q| {
                let (memory, opts) = (&memory, &opts);
                async move {
                    memory.exhaustive_search(&q, opts).await.unwrap();
                }
            })
            .await;
            let sql = percentiles(&queries, |q| {
                let (sqlite, opts) = (&sqlite, &opts);
                async move {
                    sqlite.search(&q, opts).await.unwrap();
                }
            })
            .await;
            let scans = if n >= 1_000_000 { 5 } else if n >= 100_000 { 20 } else { 50 };
            let mem_scan = percentiles(&queries[..scans], |q| {
                let memory = &memory;
                async move {
                    linear_scan(memory, &q).await;
                }
            })
            .await;
            let sql_scan = percentiles(&queries[..scans], |q| {
                let sqlite = &sqlite;
                async move {
                    linear_scan(sqlite, &q).await;
                }
            })
            .await;
            for (name, pruned, all, scan) in [
                ("in_memory max_score", &mem, Some(&mem_all), &mem_scan),
                ("sqlite impact_topk", &sql, None, &sql_scan),
            ] {
                let exhaustive = all.map_or_else(String::new, |all| {
                    format!(
                        " | exhaustive p50 {:.3} ms p99 {:.3} ms (ratio p50 {:.1}x p99 {:.1}x)",
                        ms(all.p50),
                        ms(all.p99),
                        ms(all.p50) / ms(pruned.p50),
                        ms(all.p99) / ms(pruned.p99),
                    )
                });
                println!(
                    "n={n}: search {name} p50 {:.3} ms p99 {:.3} ms mean {:.3} ms{exhaustive} | \
                     linear scan p50 {:.1} ms ({} q, ratio {:.0}x)",
                    ms(pruned.p50),
                    ms(pruned.p99),
                    ms(pruned.mean),
                    ms(scan.p50),
                    scans,
                    ms(scan.p50) / ms(pruned.p50)
                );
            }
        });
    }
}

/// Criterion's positional name filters among `args` (values of flags such as
/// `--measurement-time 2` are not filters).
fn name_filters(args: &[String]) -> Vec<&String> {
    const VALUE_FLAGS: &[&str] = &[
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--color",
        "--profile-time",
        "--significance-level",
        "--noise-threshold",
        "--confidence-level",
        "--nresamples",
        "--plotting-backend",
        "--output-format",
        "--format",
        "--logfile",
    ];
    let mut filters = Vec::new();
    let mut previous: Option<&str> = None;
    for arg in args {
        let is_value = previous.is_some_and(|p| VALUE_FLAGS.contains(&p));
        if !arg.starts_with('-') && !is_value {
            filters.push(arg);
        }
        previous = Some(arg.as_str());
    }
    filters
}

fn main() {
    let rt = runtime();
    let corpus = Corpus::new();
    let mut c = Criterion::default()
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    insert_batched(&mut c, &rt, &corpus);
    insert_single(&mut c, &rt, &corpus);
    search(&mut c, &rt, &corpus);
    // The report is long: only in a real bench run (not `cargo test --benches`),
    // and with a name filter only when the filter is `report`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filters = name_filters(&args);
    if args.iter().any(|a| a == "--bench") && filters.iter().all(|f| f.as_str() == "report") {
        report(&rt, &corpus);
        let queries = corpus.queries(500, 1234);
        for n in sizes() {
            rt.block_on(sessions::report(&corpus, n, &queries, TOP_K));
        }
    }
    c.final_summary();
}
