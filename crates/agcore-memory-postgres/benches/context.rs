//! The context field's cost on PostgreSQL: the bench corpus
//! (`agcore_memory_testkit::corpus`, 10k memories; `AGCORE_BENCH_CONTEXT_N`
//! for another size) saved plain (no session: plain BM25) and as turns of
//! sessions (20 consecutive memories each, one second apart), into a store
//! with the default context field and, for the sessions, into one without
//! it, measured alike on every backend (`agcore_memory_testkit::turns`).
//! For each: batched insert rate (`save_many` of 1,000), single save p50
//! (a turn appended to a session), search p50/p99 (top 10, 500 queries)
//! after `VACUUM (ANALYZE)` of the store's tables (steady state).
//!
//! Needs `AGCORE_TEST_POSTGRES_URL`; without it, prints why and does
//! nothing. Schemas `agbench_ctx_*` are dropped afterwards, unless
//! `AGCORE_BENCH_KEEP` is set (to read plans and the server's log).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap,
    clippy::indexing_slicing
)]

use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::turns::{context_sets, measure_turns};
use vacuum::vacuum;

#[path = "support/vacuum.rs"]
mod vacuum;

async fn drop_schema(url: &str, tag: &str) {
    // A plain connection: the bench never migrates the default schema.
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("DROP SCHEMA IF EXISTS agbench_ctx_{tag} CASCADE"))
        .await
        .unwrap();
}

async fn run(url: &str, tag: &str, field: Option<ContextField>, items: &[MemoryItem]) {
    drop_schema(url, tag).await;
    let db = PostgresDatabase::builder()
        .schema(format!("agbench_ctx_{tag}"))
        .context_field(field)
        .open(url)
        .await
        .unwrap();
    let steady = || vacuum(&db, "agcore_items, agcore_postings");
    let figures = measure_turns(&db.store(), items, steady).await;
    println!("{}", figures.line(items.len(), tag));
    if std::env::var_os("AGCORE_BENCH_KEEP").is_none() {
        drop_schema(url, tag).await;
    }
}

fn main() {
    let Ok(url) = std::env::var("AGCORE_TEST_POSTGRES_URL") else {
        eprintln!("context bench: set AGCORE_TEST_POSTGRES_URL; nothing to do");
        return;
    };
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (plain, turns) = context_sets();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        run(&url, "plain", Some(ContextField::default()), &plain).await;
        run(&url, "sessions", Some(ContextField::default()), &turns).await;
        run(&url, "sessions_nofield", None, &turns).await;
    });
}
