//! Redis beside SQLite, in one run on the same data
//! (`agcore_memory_testkit::corpus`): single save p50/p99, batched insert
//! rate (`save_many` of 1,000), get and search p50/p99 (top 10) at 10k
//! memories. Ratios are SQLite / Redis for times (above 1: Redis faster).
//! Then the context field's cost: the same memories as turns of 20-turn
//! sessions, Redis with the field (the default) beside Redis without it
//! (ratio = without / with for times: below 1, the field costs that much).
//!
//! Needs `AGCORE_TEST_REDIS_URL` (`scripts/databases.sh start`); without it,
//! prints why and does nothing. Criterion times one save; the report follows.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_redis::RedisStore;
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::corpus::{Corpus, Percentiles, ms, percentiles};
use criterion::Criterion;
use tokio::runtime::Runtime;

const N: usize = 10_000;

struct Figures {
    insert_per_s: f64,
    save: Percentiles,
    get: Percentiles,
    search: Percentiles,
}

async fn redis_store(url: &str, prefix: &str, field: Option<ContextField>) -> Arc<dyn MemoryStore> {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    for chunk in keys.chunks(1_000) {
        let _: () = redis::cmd("DEL")
            .arg(chunk)
            .query_async(&mut conn)
            .await
            .unwrap();
    }
    Arc::new(
        RedisStore::builder()
            .prefix(prefix)
            .context_field(field)
            .open(url)
            .await
            .unwrap(),
    )
}

/// `item` as turn `i` of 20-turn sessions when `sessions`.
fn as_turn(item: MemoryItem, i: usize, sessions: bool) -> MemoryItem {
    if sessions {
        item.with_metadata(serde_json::json!({ "session": i / 20 }))
    } else {
        item
    }
}

async fn measure(store: Arc<dyn MemoryStore>, corpus: &Corpus, sessions: bool) -> Figures {
    let items: Vec<MemoryItem> = corpus
        .memories(N, 7)
        .into_iter()
        .enumerate()
        .map(|(i, item)| as_turn(item, i, sessions))
        .collect();
    let started = Instant::now();
    for chunk in items.chunks(1_000) {
        store.save_many(chunk.to_vec()).await.unwrap();
    }
    let insert_per_s = N as f64 / started.elapsed().as_secs_f64();
    let queries = corpus.queries(1_000, 11);
    let mut i = 0;
    let save = percentiles(&queries, |q| {
        i += 1;
        let store = Arc::clone(&store);
        async move {
            store
                .save(as_turn(
                    MemoryItem::new(format!("single:{i}"), q),
                    i,
                    sessions,
                ))
                .await
                .unwrap()
        }
    })
    .await;
    let mut j = 0;
    let get = percentiles(&queries, |_| {
        j = (j + 7_919) % N;
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
    Figures {
        insert_per_s,
        save,
        get,
        search,
    }
}

fn line(what: &str, names: [&str; 2], base: Duration, other: Duration) -> String {
    format!(
        "{what:>11}: {} {:.3} ms | {} {:.3} ms | ratio {:.2}x",
        names[0],
        ms(base),
        names[1],
        ms(other),
        ms(base) / ms(other).max(1e-9)
    )
}

fn report(title: &str, names: [&str; 2], a: &Figures, b: &Figures) {
    println!("\n== report: {title} ==");
    println!(
        "batched insert: {} {:.0}/s | {} {:.0}/s | ratio {:.2}x",
        names[0],
        a.insert_per_s,
        names[1],
        b.insert_per_s,
        b.insert_per_s / a.insert_per_s
    );
    println!("{}", line("save p50", names, a.save.p50, b.save.p50));
    println!("{}", line("save p99", names, a.save.p99, b.save.p99));
    println!("{}", line("get p50", names, a.get.p50, b.get.p50));
    println!("{}", line("search p50", names, a.search.p50, b.search.p50));
    println!("{}", line("search p99", names, a.search.p99, b.search.p99));
}

fn main() {
    let Ok(url) = std::env::var("AGCORE_TEST_REDIS_URL") else {
        eprintln!(
            "redis bench: set AGCORE_TEST_REDIS_URL (scripts/databases.sh start); nothing to do"
        );
        return;
    };
    let rt: Runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let corpus = Corpus::new();
    let args: Vec<String> = std::env::args().collect();
    let mut c = Criterion::default().configure_from_args();
    if !args.iter().any(|a| a == "report") {
        let store = rt.block_on(redis_store(
            &url,
            "agbench:criterion",
            Some(ContextField::default()),
        ));
        let mut i = 0_u64;
        c.bench_function("redis/save", |b| {
            b.iter(|| {
                i += 1;
                let item = MemoryItem::new(
                    format!("c:{}", i % 10_000),
                    "the user prefers green tea in the morning",
                );
                rt.block_on(store.save(item)).unwrap();
            });
        });
    }
    c.final_summary();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--list") {
        let dir = tempfile::tempdir().unwrap();
        let sqlite: Arc<dyn MemoryStore> = Arc::new(
            rt.block_on(SqliteStore::open(dir.path().join("b.db")))
                .unwrap(),
        );
        let s = rt.block_on(measure(sqlite, &corpus, false));
        let r = rt.block_on(async {
            let store = redis_store(&url, "agbench:report", Some(ContextField::default())).await;
            measure(store, &corpus, false).await
        });
        report(
            &format!("Redis beside SQLite, n={N} (ratio = sqlite / redis for times)"),
            ["sqlite", "redis"],
            &s,
            &r,
        );
        let plain = rt.block_on(async {
            measure(
                redis_store(&url, "agbench:plain", None).await,
                &corpus,
                true,
            )
            .await
        });
        let field = rt.block_on(async {
            let store = redis_store(&url, "agbench:field", Some(ContextField::default())).await;
            measure(store, &corpus, true).await
        });
        report(
            &format!(
                "Redis context field, n={N} turns in 20-turn sessions (ratio = without / with for times)"
            ),
            ["without", "with"],
            &plain,
            &field,
        );
    }
}
