//! PostgreSQL beside SQLite, in one run on the same data
//! (`agcore_memory_testkit::corpus`): batched insert rate (`save_many` of
//! 1,000 items), single save, get by id, and search p50/p99 (top 10) at 10k
//! and 100k memories. Ratios are SQLite / PostgreSQL for times (above 1:
//! PostgreSQL faster) and PostgreSQL / SQLite for rates. Then long-term
//! prefetch (`ScopedMemory::search`, top 5) p50/p99 with 100k entries in one
//! scope among 100 (`support/long_term.rs`). Searches run after `VACUUM
//! (ANALYZE)` of the store's tables (steady state); `AGCORE_BENCH_KEEP`
//! leaves the report's schemas in place.
//!
//! Needs `AGCORE_TEST_POSTGRES_URL` (`scripts/databases.sh start`); without
//! it, prints why and does nothing. Criterion times one search at 10k; the
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
#[path = "support/vacuum.rs"]
mod vacuum;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::corpus::{Corpus, Percentiles, ms, percentiles, sizes};
use criterion::Criterion;
use tokio::runtime::Runtime;
use vacuum::vacuum;

const CHUNK: usize = 1_000;

struct Figures {
    insert_per_s: f64,
    save: Percentiles,
    get: Percentiles,
    search: Percentiles,
}

/// Drops the bench schema `agbench_{tag}` if it exists.
async fn drop_schema(url: &str, tag: &str) {
    // A plain connection: the bench never migrates the default schema.
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("DROP SCHEMA IF EXISTS agbench_{tag} CASCADE"))
        .await
        .unwrap();
}

/// A database in a fresh schema `agbench_{tag}`.
async fn postgres(url: &str, tag: &str) -> PostgresDatabase {
    drop_schema(url, tag).await;
    PostgresDatabase::builder()
        .schema(format!("agbench_{tag}"))
        .open(url)
        .await
        .unwrap()
}

async fn measure(
    store: Arc<dyn MemoryStore>,
    corpus: &Corpus,
    n: usize,
    db: Option<&PostgresDatabase>,
) -> Figures {
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
    if let Some(db) = db {
        vacuum(db, "agcore_items, agcore_postings").await;
    }
    let search = percentiles(&queries, |q| {
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
    }
}

fn line(what: &str, sqlite: Duration, pg: Duration) -> String {
    format!(
        "{what:>10} p: sqlite {:.3} ms | postgres {:.3} ms | ratio {:.2}x",
        ms(sqlite),
        ms(pg),
        ms(sqlite) / ms(pg).max(1e-9)
    )
}

fn report(rt: &Runtime, url: &str, corpus: &Corpus) {
    println!("\n== report: PostgreSQL beside SQLite (ratio = sqlite / postgres for times) ==");
    for n in sizes() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite: Arc<dyn MemoryStore> = Arc::new(
            rt.block_on(SqliteStore::open(dir.path().join("bench.db")))
                .unwrap(),
        );
        let s = rt.block_on(measure(sqlite, corpus, n, None));
        let p = rt.block_on(async {
            let tag = format!("report_{n}");
            let db = postgres(url, &tag).await;
            let figures = measure(Arc::new(db.store()), corpus, n, Some(&db)).await;
            if std::env::var_os("AGCORE_BENCH_KEEP").is_none() {
                drop_schema(url, &tag).await;
            }
            figures
        });
        println!(
            "n={n}: batched insert sqlite {:.0}/s | postgres {:.0}/s | ratio {:.2}x",
            s.insert_per_s,
            p.insert_per_s,
            p.insert_per_s / s.insert_per_s
        );
        println!("n={n}: {}", line("save p50", s.save.p50, p.save.p50));
        println!("n={n}: {}", line("get p50", s.get.p50, p.get.p50));
        println!("n={n}: {}", line("search p50", s.search.p50, p.search.p50));
        println!("n={n}: {}", line("search p99", s.search.p99, p.search.p99));
    }
}

fn main() {
    let Ok(url) = std::env::var("AGCORE_TEST_POSTGRES_URL") else {
        eprintln!(
            "postgres bench: set AGCORE_TEST_POSTGRES_URL (scripts/databases.sh start); nothing to do"
        );
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let corpus = Corpus::new();
    let args: Vec<String> = std::env::args().collect();
    let long_term_only = args.iter().any(|a| a == "long-term");
    if long_term_only {
        support::long_term::report(&rt, &url, &corpus);
        return;
    }
    let only_report = args.iter().any(|a| a == "report");
    let mut c = Criterion::default().configure_from_args();
    if !only_report {
        let store = rt.block_on(async {
            let db = postgres(&url, "criterion").await;
            let store = db.store();
            for chunk in corpus.memories(10_000, 7).chunks(CHUNK) {
                store.save_many(chunk.to_vec()).await.unwrap();
            }
            vacuum(&db, "agcore_items, agcore_postings").await;
            store
        });
        let queries = corpus.queries(256, 3);
        let mut q = 0;
        c.bench_function("postgres/search/10000", |b| {
            b.iter(|| {
                q = (q + 1) % queries.len();
                rt.block_on(store.search(&queries[q], &SearchOptions::top_k(10)))
                    .unwrap()
            });
        });
        rt.block_on(drop_schema(&url, "criterion"));
    }
    c.final_summary();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--list") {
        report(&rt, &url, &corpus);
        support::long_term::report(&rt, &url, &corpus);
    }
}
