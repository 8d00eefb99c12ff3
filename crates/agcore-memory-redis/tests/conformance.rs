//! The public `MemoryStore` conformance suite, unchanged, against Redis
//! (each store under a fresh key prefix), and the wiki and conversation
//! history over it.
#![cfg(test)]

use crate::support;

use std::sync::Arc;

use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_testkit as testkit;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_passes_the_conformance_suite() {
    let Some(url) = support::url() else { return };
    let make_url = url.clone();
    let report = testkit::conformance_report(move |eviction: EvictionConfig| {
        let url = make_url.clone();
        async move { Arc::new(support::fresh(&url, "conf", eviction).await) as Arc<dyn MemoryStore> }
    })
    .await;
    support::drop_keys(&url, "conf");
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 23);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wiki_and_conversation_run_on_redis() {
    let Some(url) = support::url() else { return };
    let store = support::fresh(&url, "layer", EvictionConfig::none()).await;
    let result = testkit::check_wiki_and_conversation(Arc::new(store)).await;
    support::drop_keys(&url, "layer");
    result.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_passes_the_context_conformance_suite() {
    let Some(url) = support::url() else { return };
    let make_url = url.clone();
    let report = testkit::context::context_conformance_report(
        move |field: Option<agcore_memory::retriever::ContextField>, eviction: EvictionConfig| {
            let url = make_url.clone();
            async move {
                Arc::new(support::fresh_with(&url, "confctx", eviction, field).await)
                    as Arc<dyn MemoryStore>
            }
        },
    )
    .await;
    support::drop_keys(&url, "confctx");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 7);
}
