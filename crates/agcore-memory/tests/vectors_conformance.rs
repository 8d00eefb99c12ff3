//! The public vector suite run against [`InMemoryVectors`] (exact and with
//! the graph forced on) and [`CachedVectors`] over in-process rows.
#![cfg(test)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use agcore_llm::embedding::EmbeddingSpace;
use agcore_memory::MemoryError;
use agcore_memory::vector::{
    CachedVectors, InMemoryVectors, InMemoryVectorsConfig, VectorRecord, VectorRows, VectorStore,
    check_space,
};
use agcore_memory_testkit::vectors;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_vectors_pass_the_suite() {
    let report = vectors::vector_conformance_report(|space| async move {
        Ok(Arc::new(InMemoryVectors::new(space)) as Arc<dyn VectorStore>)
    })
    .await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 12);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_vectors_with_the_graph_forced_on_pass_the_suite() {
    let report = vectors::vector_conformance_report(|space| async move {
        // Graphs built inline, so every check after the first 40 vectors runs on one.
        let config = InMemoryVectorsConfig::default()
            .with_exact_threshold(40)
            .with_background_builds(false);
        Ok(Arc::new(InMemoryVectors::with_config(space, config)) as Arc<dyn VectorStore>)
    })
    .await;
    assert!(report.is_success(), "{report}");
}

/// A "database" in process memory: its rows and the space it was created in.
#[derive(Default)]
struct Disk {
    space: Option<EmbeddingSpace>,
    rows: BTreeMap<(String, String), VectorRecord>,
}

#[derive(Clone)]
struct DiskRows(Arc<Mutex<Disk>>);

#[async_trait::async_trait]
impl VectorRows for DiskRows {
    async fn upsert_rows(&self, records: &[VectorRecord]) -> Result<(), MemoryError> {
        let mut disk = self.0.lock().unwrap();
        for r in records {
            disk.rows
                .insert((r.namespace.clone(), r.id.clone()), r.clone());
        }
        Ok(())
    }
    async fn delete_rows(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        let mut disk = self.0.lock().unwrap();
        Ok(ids
            .iter()
            .filter(|id| {
                disk.rows
                    .remove(&(namespace.to_owned(), (*id).clone()))
                    .is_some()
            })
            .count())
    }
}

async fn open(disk: Arc<Mutex<Disk>>, space: EmbeddingSpace) -> vectors::OpenResult {
    let stored = {
        let mut d = disk.lock().unwrap();
        match &d.space {
            Some(stored) => check_space(stored, &space)?,
            None => d.space = Some(space.clone()),
        }
        d.rows.values().cloned().collect()
    };
    let store = CachedVectors::load(
        DiskRows(disk),
        space,
        InMemoryVectorsConfig::default(),
        stored,
    )
    .await?;
    Ok(Arc::new(store) as Arc<dyn VectorStore>)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_vectors_pass_the_suite_and_the_persistence_checks() {
    let current = Arc::new(Mutex::new(Arc::new(Mutex::new(Disk::default()))));
    let fresh = |space| {
        let disk = Arc::new(Mutex::new(Disk::default()));
        *current.lock().unwrap() = Arc::clone(&disk);
        open(disk, space)
    };
    let reopen = |space| open(Arc::clone(&current.lock().unwrap()), space);
    let report = vectors::vector_conformance_report(fresh).await;
    assert!(report.is_success(), "{report}");
    let report = vectors::vector_persistence_report(fresh, reopen).await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_fails_a_store_that_ignores_namespaces() {
    /// Drops every namespace: filters and isolation must fail.
    struct Flat(InMemoryVectors);
    #[async_trait::async_trait]
    impl VectorStore for Flat {
        fn space(&self) -> &EmbeddingSpace {
            self.0.space()
        }
        async fn upsert(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
            let records = records
                .into_iter()
                .map(|r| VectorRecord::new("", r.id, r.vector, r.content_hash))
                .collect();
            self.0.upsert(records).await
        }
        async fn delete(&self, _: &str, ids: &[String]) -> Result<usize, MemoryError> {
            self.0.delete("", ids).await
        }
        async fn content_hashes(
            &self,
            _: &str,
            ids: &[String],
        ) -> Result<Vec<Option<String>>, MemoryError> {
            self.0.content_hashes("", ids).await
        }
        async fn vectors(
            &self,
            _: &str,
            ids: &[String],
        ) -> Result<Vec<Option<Vec<f32>>>, MemoryError> {
            self.0.vectors("", ids).await
        }
        async fn search(
            &self,
            q: &[f32],
            k: usize,
            f: &agcore_memory::vector::VectorFilter,
        ) -> Result<Vec<agcore_memory::vector::VectorHit>, MemoryError> {
            self.0.search(q, k, f).await
        }
        async fn count(
            &self,
            f: &agcore_memory::vector::VectorFilter,
        ) -> Result<usize, MemoryError> {
            self.0.count(f).await
        }
    }
    let report = vectors::vector_conformance_report(|space| async move {
        Ok(Arc::new(Flat(InMemoryVectors::new(space))) as Arc<dyn VectorStore>)
    })
    .await;
    assert!(!report.is_success());
    let failed: Vec<&str> = report.failed.iter().map(|(n, _)| *n).collect();
    assert!(failed.contains(&"vectors.filters"), "{report}");
    assert!(failed.contains(&"vectors.content_hashes"), "{report}");
}
