//! FlatIndex against brute force (property test), and recall of the HNSW
//! path of InMemoryVectors against exact search at a small size.
#![cfg(test)]

use agcore_llm::embedding::EmbeddingSpace;
use agcore_memory::vector::{
    FlatIndex, HnswConfig, InMemoryVectors, InMemoryVectorsConfig, VectorFilter, VectorKey,
    VectorRecord, VectorStore,
};
use agcore_memory_testkit::vectors::{brute_force, clustered_unit_vectors, random_unit_vectors};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Top-k of FlatIndex equals sorting every score, after random inserts,
    /// replacements and swap-remove deletes.
    #[test]
    fn flat_top_k_equals_a_full_sort(
        n in 0usize..120,
        k in 0usize..30,
        seed in any::<u64>(),
        deletes in proptest::collection::vec(0usize..120, 0..40),
        replace in proptest::collection::vec(0usize..120, 0..20),
    ) {
        let d = 8;
        let vectors = random_unit_vectors(n + replace.len() + 1, d, seed);
        let mut flat = FlatIndex::new(d);
        let mut records: Vec<VectorRecord> = Vec::new();
        for i in 0..n {
            // few ids per namespace and coarse vectors give exact ties too
            let v: Vec<f32> = if i % 7 == 0 { vectors[0].clone() } else { vectors[i].clone() };
            let ns = format!("n{}", i % 3);
            flat.upsert(VectorKey::new(ns.as_str(), format!("{i}")), &v);
            records.push(VectorRecord::new(ns, format!("{i}"), v, ""));
        }
        for (j, r) in replace.iter().enumerate() {
            if let Some(rec) = records.get_mut(*r) {
                rec.vector = vectors[n + j].clone();
                flat.upsert(VectorKey::new(rec.namespace.as_str(), rec.id.as_str()), &rec.vector);
            }
        }
        for r in deletes {
            if r < records.len() {
                let rec = records.remove(r);
                prop_assert!(flat.remove(&VectorKey::new(rec.namespace, rec.id)));
            }
        }
        prop_assert_eq!(flat.len(), records.len());
        let query = &vectors[n + replace.len()];
        let got: Vec<(String, String)> = flat
            .search(query, k, |_| true)
            .into_iter()
            .map(|(_, key)| (key.namespace.clone(), key.id.clone()))
            .collect();
        let want: Vec<(String, String)> = brute_force(&records, query, k, &VectorFilter::default())
            .into_iter()
            .map(|h| (h.namespace, h.id))
            .collect();
        prop_assert_eq!(got, want);
        // Per namespace: the namespace's row list gives the filtered scan's
        // hits and sizes, after the same swap-remove deletes.
        for ns in ["n0", "n1", "n2", "absent"] {
            let in_ns = |key: &VectorKey| key.namespace == ns;
            let got: Vec<(String, String)> = flat
                .search_in(ns, query, k, |_| true)
                .into_iter()
                .map(|(_, key)| (key.namespace.clone(), key.id.clone()))
                .collect();
            let scanned: Vec<(String, String)> = flat
                .search(query, k, in_ns)
                .into_iter()
                .map(|(_, key)| (key.namespace.clone(), key.id.clone()))
                .collect();
            prop_assert_eq!(&got, &scanned);
            let want_len = records.iter().filter(|r| r.namespace == ns).count();
            prop_assert_eq!(flat.namespace_len(ns), want_len);
            prop_assert_eq!(flat.keys_in(Some(ns)).count(), want_len);
            prop_assert!(flat.keys_in(Some(ns)).all(|key| key.namespace == ns));
            let copy = flat.namespace_copy(ns);
            prop_assert_eq!(copy.len(), want_len);
            let copied: Vec<(String, String)> = copy
                .search(query, k, |_| true)
                .into_iter()
                .map(|(_, key)| (key.namespace.clone(), key.id.clone()))
                .collect();
            prop_assert_eq!(&copied, &scanned);
        }
    }
}

/// Recall@10 of the graph path against exact search on 5,000 clustered
/// 32-d vectors (graph forced on by a low threshold), fixed seed, then
/// again after a third of the vectors are replaced or deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hnsw_recall_at_10_is_at_least_095() {
    let d = 32;
    let space = EmbeddingSpace::new("recall", d);
    // a smaller construction beam keeps the unoptimised test build quick
    let hnsw = HnswConfig {
        ef_construction: 64,
        ..HnswConfig::default()
    };
    let config = InMemoryVectorsConfig::default()
        .with_exact_threshold(1_000)
        .with_hnsw(hnsw);
    let store = InMemoryVectors::with_config(space, config);
    let centres = random_unit_vectors(50, d, 41);
    let vectors = clustered_unit_vectors(5_000, &centres, 0.15, 42);
    let mut records: Vec<VectorRecord> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| VectorRecord::new(format!("n{}", i % 2), format!("{i}"), v.clone(), ""))
        .collect();
    store.upsert(records.clone()).await.unwrap();
    store.rebuilt().await.unwrap();
    assert!(store.uses_graph().unwrap());
    let queries = clustered_unit_vectors(200, &centres, 0.15, 43);
    let recall = measure(&store, &records, &queries).await;
    assert!(recall >= 0.95, "recall@10 {recall}");

    // churn: replace 1,000 vectors, delete 800
    let fresh = clustered_unit_vectors(1_000, &centres, 0.15, 44);
    let mut changed = Vec::new();
    for (j, v) in fresh.into_iter().enumerate() {
        let r = &mut records[j * 3];
        r.vector = v;
        changed.push(r.clone());
    }
    store.upsert(changed).await.unwrap();
    let doomed: Vec<VectorRecord> = records.drain(4_000..4_800).collect();
    for ns in ["n0", "n1"] {
        let ids: Vec<String> = doomed
            .iter()
            .filter(|r| r.namespace == ns)
            .map(|r| r.id.clone())
            .collect();
        store.delete(ns, &ids).await.unwrap();
    }
    assert_eq!(store.count(&VectorFilter::default()).await.unwrap(), 4_200);
    // While the graph is rebuilt (or right after), and once it is in place.
    let recall = measure(&store, &records, &queries).await;
    assert!(recall >= 0.95, "recall@10 after churn {recall}");
    store.rebuilt().await.unwrap();
    assert!(!store.is_rebuilding().unwrap() && store.uses_graph().unwrap());
    let recall = measure(&store, &records, &queries).await;
    assert!(recall >= 0.95, "recall@10 after the rebuild {recall}");
}

/// Writes made while a graph is built off the lock reach the new graph:
/// upserts after the build started are found, deletes are never returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_during_a_background_rebuild_are_kept() {
    let d = 16;
    let space = EmbeddingSpace::new("rebuild", d);
    let hnsw = HnswConfig {
        ef_construction: 32,
        ..HnswConfig::default()
    };
    let config = InMemoryVectorsConfig::default()
        .with_exact_threshold(500)
        .with_hnsw(hnsw);
    let store = InMemoryVectors::with_config(space, config);
    let vectors = random_unit_vectors(3_000, d, 7);
    let record = |i: usize, v: &Vec<f32>| VectorRecord::new("n", format!("{i}"), v.clone(), "");
    // Crossing the threshold starts the first build; keep writing meanwhile.
    store
        .upsert(
            vectors[..2_000]
                .iter()
                .enumerate()
                .map(|(i, v)| record(i, v))
                .collect(),
        )
        .await
        .unwrap();
    for (i, v) in vectors.iter().enumerate().skip(2_000) {
        store.upsert(vec![record(i, v)]).await.unwrap();
    }
    let gone: Vec<String> = (0..3_000).step_by(3).map(|i| format!("{i}")).collect();
    // A third deleted: past the tombstone fraction, a rebuild starts; write on.
    store.delete("n", &gone).await.unwrap();
    let late = random_unit_vectors(200, d, 8);
    for (j, v) in late.iter().enumerate() {
        store.upsert(vec![record(10_000 + j, v)]).await.unwrap();
    }
    store.rebuilt().await.unwrap();
    assert!(store.uses_graph().unwrap());
    assert_eq!(
        store.count(&VectorFilter::default()).await.unwrap(),
        2_000 + 200
    );
    for (j, v) in late.iter().enumerate() {
        let hits = store.search(v, 1, &VectorFilter::default()).await.unwrap();
        assert_eq!(
            hits[0].id,
            format!("{}", 10_000 + j),
            "a vector written during the build is missing"
        );
    }
    for (i, v) in vectors.iter().enumerate() {
        let hits = store.search(v, 5, &VectorFilter::default()).await.unwrap();
        assert!(
            hits.iter().all(|h| !gone.contains(&h.id)),
            "a deleted vector came back"
        );
        if i % 3 != 0 {
            assert_eq!(hits[0].id, format!("{i}"));
        }
    }
}

/// Each namespace past the threshold gets a graph of its own vectors:
/// namespaces crossing it in one write are all built (one after the other),
/// a small namespace stays exact, and a namespace whose vectors lie farther
/// from the queries (as window vectors of three turns lie farther from a
/// short query than the turns do) is searched with exact-level recall. A namespace shrinking below half the
/// threshold loses its graph.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_namespace_past_the_threshold_gets_its_own_graph() {
    let d = 16;
    let space = EmbeddingSpace::new("namespaces", d);
    let config = InMemoryVectorsConfig::default().with_exact_threshold(300);
    let store = InMemoryVectors::with_config(space, config);
    let centres = random_unit_vectors(20, d, 51);
    let mut records = Vec::new();
    for (ns, spread, n, seed) in [
        ("turns", 0.2, 800, 53),
        ("windows", 0.5, 800, 54),
        ("small", 0.2, 100, 55),
    ] {
        for (i, v) in clustered_unit_vectors(n, &centres, spread, seed)
            .into_iter()
            .enumerate()
        {
            records.push(VectorRecord::new(ns, format!("{i}"), v, ""));
        }
    }
    store.upsert(records.clone()).await.unwrap();
    store.rebuilt().await.unwrap();
    assert_eq!(store.graph_namespaces().unwrap(), ["turns", "windows"]);
    let queries = clustered_unit_vectors(100, &centres, 0.2, 56);
    for filter in [
        VectorFilter::namespace("windows"),
        VectorFilter::namespace("turns"),
        VectorFilter::default(),
    ] {
        let recall = recall_at_10(&store, &records, &queries, |_| filter.clone()).await;
        assert!(recall >= 0.95, "recall@10 {recall} with {filter:?}");
    }
    let gone: Vec<String> = (100..800).map(|i| format!("{i}")).collect();
    assert_eq!(store.delete("windows", &gone).await.unwrap(), 700);
    store.rebuilt().await.unwrap();
    assert_eq!(store.graph_namespaces().unwrap(), ["turns"]);
}

/// Recall@10 against brute force over `queries`, query `i` searched with
/// `filter_of(i)`; every hit must pass its filter.
async fn recall_at_10(
    store: &InMemoryVectors,
    records: &[VectorRecord],
    queries: &[Vec<f32>],
    filter_of: impl Fn(usize) -> VectorFilter,
) -> f64 {
    let mut found = 0usize;
    let mut total = 0usize;
    for (i, q) in queries.iter().enumerate() {
        let filter = filter_of(i);
        let got = store.search(q, 10, &filter).await.unwrap();
        assert!(got.iter().all(|h| filter.matches(&h.namespace, &h.id)));
        let want = brute_force(records, q, 10, &filter);
        total += want.len();
        found += want
            .iter()
            .filter(|w| {
                got.iter()
                    .any(|g| g.namespace == w.namespace && g.id == w.id)
            })
            .count();
    }
    found as f64 / total.max(1) as f64
}

/// Recall@10, a quarter of the queries restricted to namespace `n1`.
async fn measure(store: &InMemoryVectors, records: &[VectorRecord], queries: &[Vec<f32>]) -> f64 {
    recall_at_10(store, records, queries, |i| {
        if i % 4 == 0 {
            VectorFilter::namespace("n1")
        } else {
            VectorFilter::default()
        }
    })
    .await
}
