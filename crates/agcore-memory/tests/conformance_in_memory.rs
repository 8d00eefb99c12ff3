//! The public conformance suite run against [`InMemoryStore`].
#![cfg(test)]

use std::sync::Arc;

use agcore_memory::{EvictionConfig, InMemoryStore, MemoryStore};
use agcore_memory_testkit as testkit;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_store_passes_the_conformance_suite() {
    let report = testkit::conformance_report(|eviction: EvictionConfig| async move {
        Arc::new(InMemoryStore::with_eviction(eviction)) as Arc<dyn MemoryStore>
    })
    .await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 23);
}

/// The same suite with tiny segments: every few writes seal and merge
/// id-ordered segments, under CRUD, upserts, eviction and search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_store_with_tiny_segments_passes_the_conformance_suite() {
    for segment in [1, 3] {
        let report = testkit::conformance_report(move |eviction: EvictionConfig| async move {
            Arc::new(InMemoryStore::with_eviction(eviction).with_segment_size(segment))
                as Arc<dyn MemoryStore>
        })
        .await;
        assert!(report.is_success(), "segment size {segment}: {report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_conformance_panics_on_a_broken_store() {
    // A store that forgets every write must fail the suite.
    struct Forgetful;
    #[async_trait::async_trait]
    impl MemoryStore for Forgetful {
        async fn save(
            &self,
            item: agcore_memory::MemoryItem,
        ) -> Result<(), agcore_memory::MemoryError> {
            item.validate()
        }
        async fn get(
            &self,
            id: &str,
        ) -> Result<Option<agcore_memory::MemoryItem>, agcore_memory::MemoryError> {
            agcore_memory::validate_id(id)?;
            Ok(None)
        }
        async fn delete(&self, id: &str) -> Result<(), agcore_memory::MemoryError> {
            agcore_memory::validate_id(id)
        }
        async fn list(
            &self,
            filter: &agcore_memory::MemoryFilter,
        ) -> Result<Vec<agcore_memory::MemoryItem>, agcore_memory::MemoryError> {
            filter.validate()?;
            Ok(Vec::new())
        }
    }
    let report =
        testkit::conformance_report(|_| async { Arc::new(Forgetful) as Arc<dyn MemoryStore> })
            .await;
    assert!(!report.is_success());
    assert!(report.failed.iter().any(|(name, _)| *name == "crud"));
}
