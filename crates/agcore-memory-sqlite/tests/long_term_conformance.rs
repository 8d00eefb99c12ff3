//! The public long-term conformance suite against `SqliteLongTerm`, in a
//! file and in memory.
#![cfg(test)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::long_term::LongTermMemory;
use agcore_memory_sqlite::SqliteLongTerm;
use agcore_memory_testkit::long_term::{LONG_TERM_CHECKS, long_term_report};
use agcore_memory_testkit::run_long_term_conformance;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_file_long_term_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let next = Arc::new(AtomicUsize::new(0));
    let report = long_term_report(move || {
        let path = root.join(format!("lt-{}.db", next.fetch_add(1, Ordering::Relaxed)));
        async move { LongTermMemory::new(SqliteLongTerm::open(path).await.unwrap()) }
    })
    .await;
    eprintln!("{report}");
    assert!(report.is_success(), "file: {report}");
    assert_eq!(report.passed, LONG_TERM_CHECKS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_in_memory_long_term_passes_the_conformance_suite() {
    run_long_term_conformance(|| async {
        LongTermMemory::from_arc(Arc::new(SqliteLongTerm::open_in_memory().await.unwrap()))
    })
    .await;
}
