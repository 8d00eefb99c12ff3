//! MySQL / MariaDB beside SQLite, in one run on the same data
//! (`agcore_memory_testkit::corpus`): batched insert rate (`save_many` of
//! 1,000 items), single save, get by id, and search p50/p99 (top 10) at 10k
//! and 100k memories, also for queries of two of the 8 most frequent words
//! (`common`). Ratios are SQLite / MySQL for times (above 1:
//! MySQL faster) and MySQL / SQLite for rates. Then long-term
//! prefetch (`ScopedMemory::search`, top 5) p50/p99 with 100k entries in one
//! scope among 100 (`support/long_term.rs`).
//!
//! Needs `AGCORE_TEST_MYSQL_URL` (`scripts/databases.sh start`); without
//! it, prints why and does nothing. `AGCORE_BENCH_KEEP=1` keeps the report's
//! store databases (`agbench_report_{n}`) for `EXPLAIN`. Criterion times one search at 10k; the
//! report follows (`-- report` runs only the report, `-- long-term` only
//! the long-term part).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::indexing_slicing
)]

mod support;

use support::database::{reset, with_database};

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::corpus::{Corpus, Percentiles, ms, percentiles, sizes};
use criterion::Criterion;
use tokio::runtime::Runtime;

const CHUNK: usize = 1_000;

struct Figures {
    insert_per_s: f64,
    save: Percentiles,
    get: Percentiles,
    search: Percentiles,
    /// Searches for two of the 8 most frequent words.
    common: Percentiles,
}

/// A store in a fresh database `agbench_{tag}`.
async fn mysql(url: &str, tag: &str) -> Arc<dyn MemoryStore> {
    reset(url, &format!("agbench_{tag}"), true).await;
    let db = MysqlDatabase::open(&with_database(url, &format!("agbench_{tag}")))
        .await
        .unwrap();
    Arc::new(db.store())
}

async fn measure(store: Arc<dyn MemoryStore>, corpus: &Corpus, n: usize) -> Figures {
    let items = corpus.memories(n, 7);
    let started = Instant::now();
    for chunk in items.chunks(CHUNK) {
        store.save_many(chunk.to_vec()).await.unwrap();
    }
    let insert_per_s = n as f64 / started.elapsed().as_secs_f64();
    let queries = corpus.queries(500, 11);
    let mut i = 0;
    let save = percentiles(&queries, |q| {
        i += 1;
        let store = Arc::clone(&store);
        async move {
            store
                .save(MemoryItem::new(format!("single:{i}"), q))
                .await
                .unwrap();
        }
    })
    .await;
    let mut j = 0;
    let get = percentiles(&queries, |_| {
        j = (j + 7_919) % n;
        let store = Arc::clone(&store);
        async move {
            store.get(&format!("bench:{j}")).await.unwrap().unwrap();
        }
    })
    .await;
    let search = percentiles(&queries, |q| {
        let store = Arc::clone(&store);
        async move {
            store.search(&q, &SearchOptions::top_k(10)).await.unwrap();
        }
    })
    .await;
    let common = percentiles(&corpus.common_queries(100, 8, 13), |q| {
        let store = Arc::clone(&store);
        async move {
            store.search(&q, &SearchOptions::top_k(10)).await.unwrap();
        }
    })
    .await;
    Figures {
        insert_per_s,
        save,
        get,
        search,
        common,
    }
}

fn line(what: &str, sqlite: Duration, my: Duration) -> String {
    format!(
        "{what:>10} p: sqlite {:.3} ms | mysql {:.3} ms | ratio {:.2}x",
        ms(sqlite),
        ms(my),
        ms(sqlite) / ms(my).max(1e-9)
    )
}

fn report(rt: &Runtime, url: &str, corpus: &Corpus) {
    println!("\n== report: MySQL / MariaDB beside SQLite (ratio = sqlite / mysql for times) ==");
    for n in sizes() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite: Arc<dyn MemoryStore> = Arc::new(
            rt.block_on(SqliteStore::open(dir.path().join("bench.db")))
                .unwrap(),
        );
        let s = rt.block_on(measure(sqlite, corpus, n));
        let p = rt.block_on(async {
            let tag = format!("report_{n}");
            let figures = measure(mysql(url, &tag).await, corpus, n).await;
            if std::env::var_os("AGCORE_BENCH_KEEP").is_none() {
                reset(url, &format!("agbench_{tag}"), false).await;
            }
            figures
        });
        println!(
            "n={n}: batched insert sqlite {:.0}/s | mysql {:.0}/s | ratio {:.2}x",
            s.insert_per_s,
            p.insert_per_s,
            p.insert_per_s / s.insert_per_s
        );
        println!("n={n}: {}", line("save p50", s.save.p50, p.save.p50));
        println!("n={n}: {}", line("get p50", s.get.p50, p.get.p50));
        println!("n={n}: {}", line("search p50", s.search.p50, p.search.p50));
        println!("n={n}: {}", line("search p99", s.search.p99, p.search.p99));
        println!("n={n}: {}", line("common p50", s.common.p50, p.common.p50));
        println!("n={n}: {}", line("common p99", s.common.p99, p.common.p99));
    }
}

fn main() {
    let Ok(url) = std::env::var("AGCORE_TEST_MYSQL_URL") else {
        eprintln!(
            "mysql bench: set AGCORE_TEST_MYSQL_URL (scripts/databases.sh start); nothing to do"
        );
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let corpus = Corpus::new();
    let args: Vec<String> = std::env::args().collect();
    let only_long_term = args.iter().any(|a| a == "long-term");
    let only_report = only_long_term || args.iter().any(|a| a == "report");
    let mut c = Criterion::default().configure_from_args();
    if !only_report {
        let store = rt.block_on(async {
            let store = mysql(&url, "criterion").await;
            for chunk in corpus.memories(10_000, 7).chunks(CHUNK) {
                store.save_many(chunk.to_vec()).await.unwrap();
            }
            store
        });
        let queries = corpus.queries(256, 3);
        let mut q = 0;
        c.bench_function("mysql/search/10000", |b| {
            b.iter(|| {
                q = (q + 1) % queries.len();
                rt.block_on(store.search(&queries[q], &SearchOptions::top_k(10)))
                    .unwrap()
            });
        });
        rt.block_on(reset(&url, "agbench_criterion", false));
    }
    c.final_summary();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--list") {
        if !only_long_term {
            report(&rt, &url, &corpus);
        }
        support::long_term::report(&rt, &url, &corpus);
    }
}
