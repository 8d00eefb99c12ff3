//! The public long-term conformance suite against `InMemoryLongTerm`.
#![cfg(test)]

use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory};
use agcore_memory::testkit::long_term::long_term_report;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_long_term_passes_the_conformance_suite() {
    let report = long_term_report(|| async { LongTermMemory::new(InMemoryLongTerm::new()) }).await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 9);
}
