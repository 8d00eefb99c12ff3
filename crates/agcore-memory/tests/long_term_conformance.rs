//! The public long-term conformance suite against `InMemoryLongTerm`.
#![cfg(test)]

use std::sync::Arc;

use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory};
use agcore_memory::testkit::long_term::{LONG_TERM_CHECKS, long_term_report};
use agcore_memory::testkit::run_long_term_conformance;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_long_term_passes_the_conformance_suite() {
    let report = long_term_report(|| async { LongTermMemory::new(InMemoryLongTerm::new()) }).await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed, LONG_TERM_CHECKS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_entry_point_accepts_a_shared_backend() {
    run_long_term_conformance(|| async {
        LongTermMemory::from_arc(Arc::new(InMemoryLongTerm::new()))
    })
    .await;
}
