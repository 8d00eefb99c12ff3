//! The shared `MemoryStore` conformance suite, unchanged, against SQLite:
//! on-disk databases (one fresh file per check) and in-memory databases.
#![cfg(test)]

use agcore_memory_sqlite::SqliteStore;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_testkit as testkit;

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_on_disk_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let next = AtomicUsize::new(0);
    let (dir_ref, next_ref) = (&dir, &next);
    testkit::run_conformance(move |eviction: EvictionConfig| async move {
        let n = next_ref.fetch_add(1, Ordering::Relaxed);
        let path = dir_ref.path().join(format!("conformance-{n}.db"));
        let store = SqliteStore::builder()
            .eviction(eviction)
            .open(path)
            .await
            .unwrap();
        Arc::new(store) as Arc<dyn MemoryStore>
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_in_memory_passes_the_conformance_suite() {
    testkit::run_conformance(|eviction: EvictionConfig| async move {
        let store = SqliteStore::builder()
            .eviction(eviction)
            .open_in_memory()
            .await
            .unwrap();
        Arc::new(store) as Arc<dyn MemoryStore>
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_passes_the_context_conformance_suite() {
    let report = testkit::context::context_conformance_report(
        |field: Option<agcore_memory::retriever::ContextField>, eviction: EvictionConfig| async move {
            let store = SqliteStore::builder()
                .eviction(eviction)
                .context_field(field)
                .open_in_memory()
                .await
                .unwrap();
            Arc::new(store) as Arc<dyn MemoryStore>
        },
    )
    .await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 7);
}
