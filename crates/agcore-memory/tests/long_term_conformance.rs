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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_isolation_campaign_makes_every_attempt_and_refuses_bad_ids() {
    use agcore_memory::testkit::long_term::{ISOLATION_ATTEMPTS, isolation_campaign};
    let memory = agcore_memory::long_term::LongTermMemory::new(
        agcore_memory::long_term::InMemoryLongTerm::new(),
    );
    let report = isolation_campaign(&memory, ISOLATION_ATTEMPTS, 7)
        .await
        .unwrap();
    assert_eq!(report.attempts, ISOLATION_ATTEMPTS);
    // Empty, blank and control-character ids and the agent with a NUL are refused.
    assert!(report.refused >= 4 * 5, "{report:?}");
    assert!(report.scopes >= 4 * 20, "{report:?}");
}
