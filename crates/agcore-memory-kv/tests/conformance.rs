//! Every public testkit against `BTreeBackend`.

use std::sync::{Arc, Mutex};

use agcore_memory::long_term::LongTermMemory;
use agcore_memory::retriever::ContextField;
use agcore_memory::vector::{EmbeddingSpace, VectorStore};
use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_kv::{BTreeBackend, KvLongTerm, KvStore, open_vectors};
use agcore_memory_testkit as testkit;
use agcore_memory_testkit::long_term::{LONG_TERM_CHECKS, long_term_report};
use agcore_memory_testkit::vectors;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_passes_the_conformance_suite() {
    testkit::run_conformance(|eviction: EvictionConfig| async move {
        let backend = Arc::new(BTreeBackend::new());
        Arc::new(KvStore::open(backend, eviction).await.unwrap()) as Arc<dyn MemoryStore>
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_passes_the_context_conformance_suite() {
    let report = testkit::context::context_conformance_report(
        |field: Option<ContextField>, eviction: EvictionConfig| async move {
            let backend = Arc::new(BTreeBackend::new());
            let store = KvStore::open_with(backend, eviction, field).await.unwrap();
            Arc::new(store) as Arc<dyn MemoryStore>
        },
    )
    .await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_passes_the_conformance_suite() {
    let report = long_term_report(|| async {
        let backend = Arc::new(BTreeBackend::new());
        LongTermMemory::new(KvLongTerm::open(backend).await.unwrap())
    })
    .await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed, LONG_TERM_CHECKS);
}

async fn open(backend: BTreeBackend, space: EmbeddingSpace) -> vectors::OpenResult {
    Ok(Arc::new(open_vectors(Arc::new(backend), space).await?) as Arc<dyn VectorStore>)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_pass_the_suite_and_the_persistence_checks() {
    let current = Arc::new(Mutex::new(BTreeBackend::new()));
    let fresh = |space| {
        let backend = BTreeBackend::new();
        *current.lock().unwrap() = backend.clone();
        open(backend, space)
    };
    let reopen = |space| open(current.lock().unwrap().reopen(), space);
    let report = vectors::vector_conformance_report(fresh).await;
    assert!(report.is_success(), "{report}");
    let report = vectors::vector_persistence_report(fresh, reopen).await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 2);
}
