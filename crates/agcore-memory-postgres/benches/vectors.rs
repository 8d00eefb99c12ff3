//! pgvector search latency: `PostgresVectors::search` (top 10) p50/p99 over
//! 200 queries on clustered 384-d unit vectors (1,000 centres), beside
//! `InMemoryVectors` on the same data in the same run. The default size,
//! 30,000 (`AGCORE_BENCH_PG_VECTORS` overrides), is above the exact limit
//! (20,000), so unfiltered searches use the HNSW index; a namespace filter
//! passing half of the rows is measured too, after `VACUUM (ANALYZE)` of
//! the table (steady state).
//!
//! Needs `AGCORE_TEST_POSTGRES_URL` (`scripts/databases.sh start`); without
//! it, prints why and does nothing. The data lives in a fresh schema,
//! dropped at the end.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::indexing_slicing
)]

use std::time::{Duration, Instant};

use agcore_memory::vector::{
    EmbeddingSpace, InMemoryVectors, VectorFilter, VectorRecord, VectorStore,
};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::vectors::{clustered_unit_vectors, random_unit_vectors};
use vacuum::vacuum;

#[path = "support/vacuum.rs"]
mod vacuum;

fn p50_p99(mut t: Vec<Duration>) -> (Duration, Duration) {
    t.sort();
    (t[t.len() / 2], t[(t.len() - 1) * 99 / 100])
}

async fn latencies(
    store: &dyn VectorStore,
    queries: &[Vec<f32>],
    filter: &VectorFilter,
) -> (Duration, Duration) {
    let mut times = Vec::new();
    for q in queries {
        let t = Instant::now();
        let hits = store.search(q, 10, filter).await.unwrap();
        times.push(t.elapsed());
        assert_eq!(hits.len(), 10);
    }
    p50_p99(times)
}

fn main() {
    let Ok(url) = std::env::var("AGCORE_TEST_POSTGRES_URL") else {
        eprintln!("skipped: AGCORE_TEST_POSTGRES_URL is not set (scripts/databases.sh start)");
        return;
    };
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let n: usize = std::env::var("AGCORE_BENCH_PG_VECTORS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let space = EmbeddingSpace::new("bench", 384);
        let centres = random_unit_vectors(1_000, 384, 1);
        let records: Vec<VectorRecord> = clustered_unit_vectors(n, &centres, 0.08, 2)
            .into_iter()
            .enumerate()
            .map(|(i, v)| VectorRecord::new(format!("n{}", i % 2), format!("{i:07}"), v, ""))
            .collect();
        let queries = clustered_unit_vectors(200, &centres, 0.08, 3);
        let schema = format!("agb_vec_{}", std::process::id());
        let db = PostgresDatabase::builder().schema(schema.clone()).open(&url).await.unwrap();
        let pg = db.vectors(space.clone()).await.unwrap();
        let t = Instant::now();
        for chunk in records.chunks(1_000) {
            pg.upsert(chunk.to_vec()).await.unwrap();
        }
        println!("pgvector: inserted {n} x 384-d (HNSW index maintained) in {:.1?}", t.elapsed());
        // Before autovacuum analyses the new rows, the planner may scan the
        // table instead of the HNSW index (exact results, four times
        // slower): unfiltered searches measured 3 or 12–14 ms p50.
        vacuum(&db, "agcore_vectors").await;
        let mem = InMemoryVectors::new(space);
        mem.upsert(records).await.unwrap();
        let all = VectorFilter::default();
        let half = VectorFilter::namespace("n1");
        for (name, filter) in [("all", &all), ("namespace n1", &half)] {
            let (p50, p99) = latencies(&pg, &queries, filter).await;
            let (m50, m99) = latencies(&mem, &queries, filter).await;
            println!(
                "search top 10 ({name}): pgvector p50 {p50:.2?} p99 {p99:.2?}; InMemoryVectors p50 {m50:.2?} p99 {m99:.2?}; pgvector/in-memory p50 {:.1}x",
                p50.as_secs_f64() / m50.as_secs_f64()
            );
        }
        let client = db.pool().get().await.unwrap();
        client.batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE")).await.unwrap();
    });
}
