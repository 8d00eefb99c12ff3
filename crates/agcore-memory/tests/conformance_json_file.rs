//! The public conformance suite run against [`JsonFileStore`], each store in
//! a fresh file.
#![cfg(test)]

use std::sync::Arc;

use agcore_memory::{EvictionConfig, JsonFileStore, MemoryStore};
use agcore_memory_testkit as testkit;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_file_store_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let report = testkit::conformance_report(move |eviction: EvictionConfig| {
        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = root.join(format!("store-{n}.json"));
        async move {
            Arc::new(
                JsonFileStore::open_with_eviction(path, eviction)
                    .await
                    .unwrap(),
            ) as Arc<dyn MemoryStore>
        }
    })
    .await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 23);
}
