//! Long-term prefetch on PostgreSQL: `ScopedMemory::search(query, 5)` p50/p99
//! with N entries (100k; 1M too with `AGCORE_BENCH_1M=1`) in one scope
//! among 100 scopes (99 small scopes of 1,000 entries each), the shape of an
//! agent with one heavy user. Seeding saves through the public API with 8
//! concurrent writers; the schema is dropped afterwards (unless
//! `AGCORE_BENCH_KEEP` is set). The tables are vacuumed before timing,
//! unless `AGCORE_BENCH_NO_VACUUM` is set: then the searches run right
//! after the import, with whatever statistics the server has by then.
//! With `AGCORE_BENCH_REUSE` set, a schema kept by an earlier run
//! (`AGCORE_BENCH_KEEP`) is searched as it is, without seeding: two builds
//! compared on one database. Seeding with concurrent writers lays the
//! tables out differently each time: one build's prefetch p50 varied by
//! about a quarter between freshly seeded runs.

use std::time::Instant;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScopedMemory};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::corpus::{Corpus, ms, percentiles, sizes};
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

/// A fresh schema with 99 small scopes and `n` entries in the returned one
/// (with `AGCORE_BENCH_REUSE`, the kept schema as it is).
async fn seeded(url: &str, n: usize, corpus: &Corpus) -> ScopedMemory {
    let reuse = std::env::var_os("AGCORE_BENCH_REUSE").is_some();
    if !reuse {
        crate::drop_schema(url, &tag(n)).await;
    }
    let db = PostgresDatabase::builder()
        .schema(schema(n))
        .pool_size(WRITERS)
        .open(url)
        .await
        .unwrap();
    let memory = LongTermMemory::new(db.long_term());
    if reuse {
        let heavy = memory.scope("bench", "heavy").unwrap();
        let kept = heavy.search("user project memory", 1).await.unwrap();
        assert!(!kept.is_empty(), "AGCORE_BENCH_REUSE: no kept schema");
        return heavy;
    }
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
    if std::env::var_os("AGCORE_BENCH_NO_VACUUM").is_none() {
        crate::vacuum::vacuum(
            &db,
            "agcore_lt_scopes, agcore_lt_entries, agcore_lt_postings",
        )
        .await;
    }
    heavy
}

/// The bench's tag: its schema is `agbench_{tag}` ([`crate::drop_schema`]).
fn tag(n: usize) -> String {
    format!("lt_{n}")
}

fn schema(n: usize) -> String {
    format!("agbench_{}", tag(n))
}

/// Prints prefetch p50/p99 at each size.
pub fn report(rt: &Runtime, url: &str, corpus: &Corpus) {
    println!(
        "\n== report: long-term prefetch (ScopedMemory::search, top 5) on PostgreSQL, one scope among 100 =="
    );
    for n in sizes().into_iter().filter(|&n| n >= 100_000) {
        let scope = rt.block_on(seeded(url, n, corpus));
        let queries = corpus.queries(1_000, 5);
        let times = rt.block_on(percentiles(&queries, |q| {
            let scope = scope.clone();
            async move {
                scope.search(&q, 5).await.unwrap();
            }
        }));
        println!(
            "n={n}: prefetch p50 {:.3} ms | p99 {:.3} ms | mean {:.3} ms",
            ms(times.p50),
            ms(times.p99),
            ms(times.mean)
        );
        if std::env::var_os("AGCORE_BENCH_KEEP").is_some() {
            continue;
        }
        rt.block_on(crate::drop_schema(url, &tag(n)));
    }
}
