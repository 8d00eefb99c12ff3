//! [`HnswIndex`]: approximate nearest neighbours with deletes and filters.

use std::sync::Arc;

use foldhash::HashMap;
use hnsw_rs::anndists::dist::Distance;
use hnsw_rs::hnsw::Hnsw;

use super::flat::FlatIndex;
use super::key::{VectorKey, dot};

/// Parameters of the HNSW graph (Malkov & Yashunin, "Efficient and robust
/// approximate nearest neighbor search using Hierarchical Navigable Small
/// World graphs", TPAMI 2018).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HnswConfig {
    /// `M`: links kept per node and layer (16; at most 256).
    pub max_connections: usize,
    /// `efConstruction`: candidate list size while inserting (100).
    pub ef_construction: usize,
    /// `efSearch`: candidate list size while searching (at least `k`; 64).
    pub ef_search: usize,
    /// Highest layer (16).
    pub max_layer: usize,
}

impl Default for HnswConfig {
    fn default() -> Self {
        Self {
            max_connections: 16,
            ef_construction: 100,
            ef_search: 64,
            max_layer: 16,
        }
    }
}

/// Cosine distance of unit vectors, `1 − a·b` clamped at 0 (rounding can
/// push `a·b` of unit vectors a hair above 1).
#[derive(Debug, Clone, Copy, Default)]
pub struct UnitCosine;

impl Distance<f32> for UnitCosine {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - dot(va, vb)).max(0.0)
    }
}

/// An HNSW graph (crate `hnsw_rs`) over normalised vectors, keyed by
/// [`VectorKey`].
///
/// The graph cannot remove nodes: each insert gets a fresh label, and a
/// replaced or deleted vector leaves a tombstone (its label maps to
/// nothing). Searches over-fetch and drop tombstones and filtered-out
/// keys afterwards (see [`search`](Self::search)). The owner
/// rebuilds the graph when [`tombstone_ratio`](Self::tombstone_ratio) grows
/// too large.
pub struct HnswIndex {
    graph: Hnsw<'static, f32, UnitCosine>,
    labels: Vec<Option<Arc<VectorKey>>>,
    live: HashMap<Arc<VectorKey>, usize>,
    config: HnswConfig,
}

impl std::fmt::Debug for HnswIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HnswIndex")
            .field("live", &self.live.len())
            .field("labels", &self.labels.len())
            .field("config", &self.config)
            .finish()
    }
}

impl HnswIndex {
    /// An empty graph sized for about `capacity` vectors.
    pub fn new(config: HnswConfig, capacity: usize) -> Self {
        Self {
            graph: Hnsw::new(
                config.max_connections.clamp(2, 256),
                capacity.max(1024),
                config.max_layer.clamp(1, 16),
                config.ef_construction.max(1),
                UnitCosine,
            ),
            labels: Vec::new(),
            live: HashMap::default(),
            config,
        }
    }

    /// A graph holding every vector of `flat`, inserted in parallel.
    pub fn build(config: HnswConfig, flat: &FlatIndex) -> Self {
        let mut index = Self::new(config, flat.len());
        let mut batch = Vec::with_capacity(flat.len());
        for (key, vector) in flat.iter() {
            let label = index.labels.len();
            index.labels.push(Some(Arc::clone(key)));
            index.live.insert(Arc::clone(key), label);
            batch.push((vector, label));
        }
        index.graph.parallel_insert_slice(&batch);
        index
    }

    /// The parameters in use.
    pub fn config(&self) -> HnswConfig {
        self.config
    }

    /// Number of live vectors.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no vector is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Dead nodes per node in the graph, in `[0, 1]`.
    pub fn tombstone_ratio(&self) -> f64 {
        if self.labels.is_empty() {
            0.0
        } else {
            (self.labels.len() - self.live.len()) as f64 / self.labels.len() as f64
        }
    }

    /// Inserts `vectors` (normalised), each replacing the live vector of its
    /// key; batches of 64 or more are inserted in parallel.
    pub fn insert(&mut self, vectors: &[(Arc<VectorKey>, &[f32])]) {
        let mut batch = Vec::with_capacity(vectors.len());
        for (key, vector) in vectors {
            self.remove(key);
            let label = self.labels.len();
            self.labels.push(Some(Arc::clone(key)));
            self.live.insert(Arc::clone(key), label);
            batch.push((*vector, label));
        }
        if batch.len() >= 64 {
            self.graph.parallel_insert_slice(&batch);
        } else {
            for item in batch {
                self.graph.insert_slice(item);
            }
        }
    }

    /// Marks the vector of `key` deleted; returns whether it was live.
    pub fn remove(&mut self, key: &VectorKey) -> bool {
        let Some(label) = self.live.remove(key) else {
            return false;
        };
        if let Some(slot) = self.labels.get_mut(label) {
            *slot = None;
        }
        true
    }

    /// Up to `k` live vectors near the normalised `query` whose key passes
    /// `accept`, as `(score, key)` in no particular order (possibly more
    /// than `k`).
    ///
    /// Over-fetch then filter: the graph is searched without a predicate
    /// (a predicate inside `hnsw_rs`'s walk disables its early stop and
    /// visits most of the graph), with a candidate list of
    /// `max(ef_search, 2k) / (share · live fraction)` (`share` = estimated
    /// fraction of live vectors passing `accept`, in `(0, 1]`; at most 16×);
    /// tombstones and filtered-out keys are dropped; while fewer than `k`
    /// remain the list grows 4× (three rounds at most, never past the
    /// graph size). The caller falls back to an exact scan if it is still short.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        share: f64,
        accept: &(dyn Fn(&VectorKey) -> bool + Sync),
    ) -> Vec<(f32, Arc<VectorKey>)> {
        if k == 0 || self.live.is_empty() {
            return Vec::new();
        }
        let live_share = (1.0 - self.tombstone_ratio()).max(1e-3);
        let widen = (1.0 / (share.clamp(1e-3, 1.0) * live_share)).min(16.0);
        let base = self.config.ef_search.max(k.saturating_mul(2));
        let size = self.labels.len().max(k);
        let mut ef = ((base as f64 * widen).ceil() as usize).min(size);
        let mut hits = Vec::new();
        for _ in 0..4 {
            hits = self
                .graph
                .search(query, ef, ef)
                .into_iter()
                .filter_map(|n| {
                    let key = self.labels.get(n.d_id)?.as_ref()?;
                    accept(key).then(|| (1.0 - n.distance, Arc::clone(key)))
                })
                .collect();
            if hits.len() >= k || ef >= size {
                break;
            }
            ef = ef.saturating_mul(4).min(size);
        }
        hits
    }
}
