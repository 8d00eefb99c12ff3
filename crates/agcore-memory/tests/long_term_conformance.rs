//! The public long-term conformance suite against `InMemoryLongTerm`.
#![cfg(test)]

use std::sync::Arc;

use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory};
use agcore_memory_testkit::long_term::{LONG_TERM_CHECKS, long_term_report};
use agcore_memory_testkit::run_long_term_conformance;

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
    use agcore_memory_testkit::long_term::{ISOLATION_ATTEMPTS, isolation_campaign};
    let memory = agcore_memory::long_term::LongTermMemory::new(
        agcore_memory::long_term::InMemoryLongTerm::new(),
    );
    let report = isolation_campaign(&memory, ISOLATION_ATTEMPTS, 7)
        .await
        .unwrap();
    assert_eq!(report.attempts, ISOLATION_ATTEMPTS);
    // Refused: the agents `assistant:alice` (reserved `:`) and `assistant\0`
    // with every user (2 × 27), and with the 3 valid agents the 10 empty,
    // blank, padded, control- and format-character user ids (3 × 10).
    assert_eq!(report.refused, 2 * 27 + 3 * 10, "{report:?}");
    assert_eq!(report.scopes, 3 * 17, "{report:?}");
}
