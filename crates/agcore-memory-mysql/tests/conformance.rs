//! The public `MemoryStore` conformance suite, unchanged, against MySQL / MariaDB
//! (each store in a fresh database).
#![cfg(test)]

use crate::support;

use std::sync::Arc;

use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_testkit as testkit;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_store_passes_the_conformance_suite() {
    let Some(url) = support::url() else { return };
    let make_url = url.clone();
    let report = testkit::conformance_report(move |eviction: EvictionConfig| {
        let url = make_url.clone();
        async move {
            let (db, _) = support::fresh(&url, "conf", eviction).await;
            Arc::new(db.store()) as Arc<dyn MemoryStore>
        }
    })
    .await;
    support::drop_databases(&url, "conf").await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 23);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_store_passes_the_context_conformance_suite() {
    let Some(url) = support::url() else { return };
    let make_url = url.clone();
    let report = testkit::context::context_conformance_report(
        move |field: Option<agcore_memory::retriever::ContextField>, eviction: EvictionConfig| {
            let url = make_url.clone();
            async move {
                let (db, _) = support::fresh_with(&url, "confctx", eviction, field).await;
                Arc::new(db.store()) as Arc<dyn MemoryStore>
            }
        },
    )
    .await;
    support::drop_databases(&url, "confctx").await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 7);
}
