//! Long-term prefetch on MySQL / MariaDB: `ScopedMemory::search(query, 5)` p50/p99
//! with N entries (100k; 1M too with `AGCORE_BENCH_1M=1`) in one scope
//! among 100 scopes (99 small scopes of 1,000 entries each), the shape of an
//! agent with one heavy user; then databases of one scope of 4 and of 20
//! entries, a new user's. Seeding saves through the public API with 8
//! concurrent writers; the database is dropped afterwards.

use std::time::Instant;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScopedMemory};
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_testkit::corpus::{Corpus, ms, percentiles, sizes};
use mysql_async::prelude::Queryable;
use tokio::runtime::Runtime;
use tokio::task::JoinSet;

const OTHER_SCOPES: usize = 99;
const OTHER_ENTRIES: usize = 1_000;
const WRITERS: usize = 8;

/// Saves `texts` into `scope` with [`WRITERS`] concurrent tasks.
async fn fill(scope: &ScopedMemory, texts: Vec<String>) {
    let per = texts.len().div_ceil(WRITERS).max(1);
    let mut tasks = JoinSet::new();
    for chunk in texts.chunks(per) {
        let (scope, chunk) = (scope.clone(), chunk.to_vec());
        tasks.spawn(async move {
            for text in chunk {
                scope
                    .save(NewMemory::new(MemoryType::User, "n", text))
                    .await
                    .unwrap();
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
}

/// A fresh database with 99 small scopes and `n` entries in the returned one.
async fn seeded(url: &str, n: usize, corpus: &Corpus) -> ScopedMemory {
    reset(url, n, true).await;
    let root = url.rsplit_once('/').map_or(url, |(root, _)| root);
    let db = MysqlDatabase::builder()
        .pool_size(WRITERS)
        .open(&format!("{root}/{}", database(n)))
        .await
        .unwrap();
    let memory = LongTermMemory::new(db.long_term());
    let others: Vec<String> = corpus
        .memories(OTHER_SCOPES * OTHER_ENTRIES, 3)
        .into_iter()
        .map(|item| item.content)
        .collect();
    for (s, texts) in others.chunks(OTHER_ENTRIES).enumerate() {
        let scope = memory.scope("bench", format!("user-{s}")).unwrap();
        fill(&scope, texts.to_vec()).await;
    }
    let heavy = memory.scope("bench", "heavy").unwrap();
    let started = Instant::now();
    let texts: Vec<String> = corpus
        .memories(n, 7)
        .into_iter()
        .map(|item| item.content)
        .collect();
    fill(&heavy, texts).await;
    println!(
        "n={n}: long-term seed {:.0} saves/s ({WRITERS} writers)",
        n as f64 / started.elapsed().as_secs_f64()
    );
    heavy
}

fn database(n: usize) -> String {
    format!("agbench_lt_{n}")
}

/// Drops the bench database of size `n`, and creates it again when `create`.
async fn reset(url: &str, n: usize, create: bool) {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    conn.query_drop(format!("DROP DATABASE IF EXISTS {}", database(n)))
        .await
        .unwrap();
    if create {
        conn.query_drop(format!("CREATE DATABASE {}", database(n)))
            .await
            .unwrap();
    }
    drop(conn);
    pool.disconnect().await.unwrap();
}

/// Prints prefetch p50/p99 at each size (also for queries of two of the 8
/// most frequent words), then one writer's save p50/p99.
pub fn report(rt: &Runtime, url: &str, corpus: &Corpus) {
    println!(
        "\n== report: long-term prefetch (ScopedMemory::search, top 5) on MySQL / MariaDB, one scope among 100 =="
    );
    for n in sizes().into_iter().filter(|&n| n >= 100_000) {
        let scope = rt.block_on(seeded(url, n, corpus));
        let prefetch = |queries: Vec<String>| {
            rt.block_on(percentiles(&queries, |q| {
                let scope = scope.clone();
                async move {
                    scope.search(&q, 5).await.unwrap();
                }
            }))
        };
        let times = prefetch(corpus.queries(1_000, 5));
        println!(
            "n={n}: prefetch p50 {:.3} ms | p99 {:.3} ms | mean {:.3} ms",
            ms(times.p50),
            ms(times.p99),
            ms(times.mean)
        );
        let common = prefetch(corpus.common_queries(100, 8, 13));
        println!(
            "n={n}: prefetch of two of the 8 most frequent words p50 {:.3} ms | p99 {:.3} ms",
            ms(common.p50),
            ms(common.p99)
        );
        // One writer saving new texts into the full scope: an agent's save.
        let texts: Vec<String> = corpus
            .memories(500, 29)
            .into_iter()
            .enumerate()
            .map(|(i, item)| format!("{} single {i}", item.content))
            .collect();
        let saves = rt.block_on(percentiles(&texts, |text| {
            let scope = scope.clone();
            async move {
                scope
                    .save(NewMemory::new(MemoryType::User, "n", text))
                    .await
                    .unwrap();
            }
        }));
        println!(
            "n={n}: single save p50 {:.3} ms | p99 {:.3} ms",
            ms(saves.p50),
            ms(saves.p99)
        );
        rt.block_on(reset(url, n, false));
    }
    for n in SMALL {
        small(rt, url, corpus, n);
    }
}

/// Entries in the small stores: a new user's. MariaDB 10.11 reads the
/// entries' table before the winners in the first, not in the second.
const SMALL: [usize; 2] = [4, 20];

/// Prefetch p50/p99 in a database holding one scope of `n` entries, for
/// queries of two words of one of them (every query finds something): the
/// server plans a small table's search otherwise than a large one's.
fn small(rt: &Runtime, url: &str, corpus: &Corpus, n: usize) {
    let texts: Vec<String> = corpus
        .memories(n, 7)
        .into_iter()
        .map(|item| item.content)
        .collect();
    let queries: Vec<String> = (0..1_000)
        .map(|i| {
            let words: Vec<&str> = texts[i % n].split_whitespace().collect();
            let at = (i / n) % words.len().max(1);
            words
                .iter()
                .cycle()
                .skip(at)
                .take(2)
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let scope = rt.block_on(async {
        reset(url, n, true).await;
        let root = url.rsplit_once('/').map_or(url, |(root, _)| root);
        let db = MysqlDatabase::open(&format!("{root}/{}", database(n)))
            .await
            .unwrap();
        let scope = LongTermMemory::new(db.long_term())
            .scope("bench", "new-user")
            .unwrap();
        fill(&scope, texts).await;
        scope
    });
    let times = rt.block_on(percentiles(&queries, |q| {
        let scope = scope.clone();
        async move {
            assert!(!scope.search(&q, 5).await.unwrap().is_empty(), "{q}");
        }
    }));
    println!(
        "n={n} (one scope alone): prefetch p50 {:.3} ms | p99 {:.3} ms",
        ms(times.p50),
        ms(times.p99)
    );
    rt.block_on(reset(url, n, false));
}
