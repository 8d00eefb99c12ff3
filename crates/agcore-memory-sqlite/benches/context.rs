//! The context field's cost on SQLite, measured as on every database
//! backend (`agcore_memory_testkit::turns`): the bench corpus (10k
//! memories; `AGCORE_BENCH_CONTEXT_N` for another size) saved plain (no
//! session), as turns of sessions (20 consecutive memories each, one second
//! apart) into a store with the default context field, and as turns into
//! one without it. For each: batched insert rate (`save_many` of 1,000),
//! single save p50 (a turn appended to a session), search p50/p99 (top 10,
//! 500 queries) (`cargo bench -p agcore-memory-sqlite --bench context`).
#![allow(missing_docs, clippy::unwrap_used, clippy::print_stdout)]

use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::turns::{context_sets, measure_turns};

async fn run(dir: &std::path::Path, tag: &str, field: Option<ContextField>, items: &[MemoryItem]) {
    let store = SqliteStore::builder()
        .context_field(field)
        .open(dir.join(format!("{tag}.db")))
        .await
        .unwrap();
    // No statistics to refresh: the store's statements use fixed plans.
    let figures = measure_turns(&store, items, || async {}).await;
    println!("{}", figures.line(items.len(), tag));
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (plain, turns) = context_sets();
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        run(dir.path(), "plain", Some(ContextField::default()), &plain).await;
        run(
            dir.path(),
            "sessions",
            Some(ContextField::default()),
            &turns,
        )
        .await;
        run(dir.path(), "sessions_nofield", None, &turns).await;
    });
}
