//! Test vectors and the brute-force reference.

use agcore_llm::embedding::{EmbeddingSpace, l2_normalize};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use agcore_memory::vector::{VectorFilter, VectorHit, VectorKey, VectorRecord, dot, rank_order};

/// The space the suite's stores are opened in: model `agcore-testkit-vectors`, 32 dimensions.
pub fn testkit_space() -> EmbeddingSpace {
    EmbeddingSpace::new("agcore-testkit-vectors", 32)
}

/// `n` random unit vectors of `dimensions` (components uniform in
/// `[-1, 1)`, then normalised), reproducible from `seed`.
pub fn random_unit_vectors(n: usize, dimensions: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let mut v: Vec<f32> = (0..dimensions)
                .map(|_| rng.random_range(-1.0f32..1.0))
                .collect();
            l2_normalize(&mut v);
            v
        })
        .collect()
}

/// The exact top `k` of `records` for `query` among those passing
/// `filter`: cosine scores, best first, ties by namespace then id.
pub fn brute_force(
    records: &[VectorRecord],
    query: &[f32],
    k: usize,
    filter: &VectorFilter,
) -> Vec<VectorHit> {
    let mut q = query.to_vec();
    l2_normalize(&mut q);
    let mut scored: Vec<(f32, VectorKey)> = records
        .iter()
        .filter(|r| filter.matches(&r.namespace, &r.id))
        .map(|r| {
            let mut v = r.vector.clone();
            l2_normalize(&mut v);
            (
                dot(&q, &v),
                VectorKey::new(r.namespace.as_str(), r.id.as_str()),
            )
        })
        .collect();
    scored.sort_by(|a, b| rank_order(a.0, &a.1, b.0, &b.1));
    scored
        .into_iter()
        .take(k)
        .map(|(score, key)| VectorHit {
            namespace: key.namespace,
            id: key.id,
            score,
            content_hash: None,
        })
        .collect()
}

/// A record whose content hash is derived from its id.
pub(super) fn record(namespace: &str, id: &str, vector: Vec<f32>) -> VectorRecord {
    VectorRecord::new(namespace, id, vector, format!("h:{id}"))
}

/// The unit vector along axis `axis` of `dimensions`.
pub(super) fn axis(dimensions: usize, axis: usize) -> Vec<f32> {
    let mut v = vec![0.0; dimensions];
    if let Some(x) = v.get_mut(axis) {
        *x = 1.0;
    }
    v
}

/// `ids` as owned strings.
pub(super) fn strings(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

/// `(namespace, id)` of each hit.
pub(super) fn keys(hits: &[VectorHit]) -> Vec<(String, String)> {
    hits.iter()
        .map(|h| (h.namespace.clone(), h.id.clone()))
        .collect()
}

/// `n` unit vectors sampled around `centres` (a random centre plus
/// uniform noise of amplitude `spread` per component, then normalised),
/// reproducible from `seed`: closer to real embeddings than uniform
/// noise, whose neighbours are all nearly equidistant. Make the centres
/// with [`random_unit_vectors`]; data and queries should share them.
pub fn clustered_unit_vectors(
    n: usize,
    centres: &[Vec<f32>],
    spread: f32,
    seed: u64,
) -> Vec<Vec<f32>> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let centre = centres
                .get(rng.random_range(0..centres.len().max(1)))
                .cloned()
                .unwrap_or_default();
            let mut v: Vec<f32> = centre
                .iter()
                .map(|c| c + spread * rng.random_range(-1.0f32..1.0))
                .collect();
            l2_normalize(&mut v);
            v
        })
        .collect()
}
