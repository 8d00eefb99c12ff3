//! The context field's cost on MySQL / MariaDB: the bench corpus
//! (`agcore_memory_testkit::corpus`, 10k memories; `AGCORE_BENCH_CONTEXT_N`
//! for another size) saved plain (no session: plain BM25) and as turns of
//! sessions (20 consecutive memories each, one second apart), into a store
//! with the default context field and, for the sessions, into one without
//! it, measured alike on every backend (`agcore_memory_testkit::turns`).
//! For each: batched insert rate (`save_many` of 1,000), single save p50
//! (a turn appended to a session), search p50/p99 (top 10, 500 queries)
//! after `ANALYZE TABLE` of the store's tables.
//!
//! Needs `AGCORE_TEST_MYSQL_URL`; without it, prints why and does nothing.
//! Databases `agbench_ctx_*` are dropped afterwards.
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
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_testkit::turns::{context_sets, measure_turns};
use mysql_async::prelude::Queryable;

#[path = "support/database.rs"]
mod database;

use database::{reset, with_database};

async fn run(url: &str, tag: &str, field: Option<ContextField>, items: &[MemoryItem]) {
    reset(url, &format!("agbench_ctx_{tag}"), true).await;
    let db = MysqlDatabase::builder()
        .context_field(field)
        .open(&with_database(url, &format!("agbench_ctx_{tag}")))
        .await
        .unwrap();
    // Searches with current statistics.
    let analyze = || async {
        db.pool()
            .get_conn()
            .await
            .unwrap()
            .query_drop("ANALYZE TABLE agcore_items, agcore_item_context")
            .await
            .unwrap();
    };
    let figures = measure_turns(&db.store(), items, analyze).await;
    println!("{}", figures.line(items.len(), tag));
    db.close().await.unwrap();
    reset(url, &format!("agbench_ctx_{tag}"), false).await;
}

fn main() {
    let Ok(url) = std::env::var("AGCORE_TEST_MYSQL_URL") else {
        eprintln!("context bench: set AGCORE_TEST_MYSQL_URL; nothing to do");
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
