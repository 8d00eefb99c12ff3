//! The public long-term conformance suite against `MysqlLongTerm`, each
//! memory in a fresh database.
#![cfg(test)]

use crate::support;

use agcore_memory::EvictionConfig;
use agcore_memory::long_term::LongTermMemory;
use agcore_memory_testkit::long_term::{LONG_TERM_CHECKS, long_term_report};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_long_term_passes_the_conformance_suite() {
    let Some(url) = support::url() else { return };
    let make_url = url.clone();
    let report = long_term_report(move || {
        let url = make_url.clone();
        async move {
            let (db, _) = support::fresh(&url, "ltconf", EvictionConfig::none()).await;
            LongTermMemory::new(db.long_term())
        }
    })
    .await;
    support::drop_databases(&url, "ltconf").await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed, LONG_TERM_CHECKS);
}
