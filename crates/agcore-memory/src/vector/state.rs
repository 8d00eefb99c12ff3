//! The data of an [`InMemoryVectors`](super::InMemoryVectors) and its
//! synchronous operations (run inline or on a blocking thread).

use std::sync::Arc;

use foldhash::{HashMap, HashSet};

use super::config::InMemoryVectorsConfig;
use super::flat::FlatIndex;
use super::hnsw::{HnswConfig, HnswIndex};
use super::key::{VectorKey, dot, rank_order};
use super::{VectorFilter, VectorHit, VectorRecord};

/// Vectors (with their per-namespace row lists), content hashes and, above
/// the exact threshold, the HNSW graph.
///
/// Graphs are built off the lock: when one is needed (the threshold is
/// crossed, or tombstones pass the rebuild fraction) a write hands out a
/// [`RebuildJob`] holding a snapshot of the vectors; the owner builds it on
/// a blocking thread while reads and writes go on (searches use the old
/// graph, or the exact scan when there is none), and
/// [`finish_rebuild`](Self::finish_rebuild) replays the keys written since
/// the snapshot onto the new graph before it replaces the old one.
#[derive(Debug)]
pub(super) struct State {
    pub(super) flat: FlatIndex,
    hashes: HashMap<Arc<VectorKey>, String>,
    pub(super) hnsw: Option<HnswIndex>,
    /// The running build: its generation and the keys written since its snapshot.
    rebuilding: Option<(u64, HashSet<Arc<VectorKey>>)>,
    next_generation: u64,
}

/// A graph to build from a snapshot of the vectors, off the lock.
#[derive(Debug)]
pub(super) struct RebuildJob {
    generation: u64,
    snapshot: FlatIndex,
    config: HnswConfig,
}

impl RebuildJob {
    /// Builds the graph (CPU-bound: call it on a blocking thread).
    pub(super) fn build(self) -> (u64, HnswIndex) {
        (
            self.generation,
            HnswIndex::build(self.config, &self.snapshot),
        )
    }
}

impl State {
    pub(super) fn new(dimensions: usize) -> Self {
        Self {
            flat: FlatIndex::new(dimensions),
            hashes: HashMap::default(),
            hnsw: None,
            rebuilding: None,
            next_generation: 0,
        }
    }

    /// Whether a graph is being built.
    pub(super) fn is_rebuilding(&self) -> bool {
        self.rebuilding.is_some()
    }

    /// Installs the graph built by the job of `generation`, after applying
    /// to it the keys written since the job's snapshot; a graph of an
    /// abandoned job is dropped.
    pub(super) fn finish_rebuild(&mut self, generation: u64, mut graph: HnswIndex) {
        match self.rebuilding.take() {
            Some((current, touched)) if current == generation => {
                let mut fresh: Vec<(Arc<VectorKey>, &[f32])> = Vec::new();
                for key in touched {
                    match self.flat.get(&key) {
                        Some(vector) => fresh.push((key, vector)),
                        None => {
                            graph.remove(&key);
                        }
                    }
                }
                graph.insert(&fresh);
                self.hnsw = Some(graph);
            }
            other => self.rebuilding = other,
        }
    }

    /// Applies prepared (validated, normalised, deduplicated) records;
    /// returns a graph build to run when one is due.
    pub(super) fn upsert(
        &mut self,
        records: Vec<VectorRecord>,
        config: &InMemoryVectorsConfig,
    ) -> Option<RebuildJob> {
        let mut changed = Vec::with_capacity(records.len());
        for record in records {
            let key = VectorKey::new(record.namespace, record.id);
            let Some((shared, _)) = self.flat.upsert(key, &record.vector) else {
                continue;
            };
            self.hashes.insert(Arc::clone(&shared), record.content_hash);
            changed.push(shared);
        }
        if let Some(hnsw) = self.hnsw.as_mut() {
            let vectors: Vec<(Arc<VectorKey>, &[f32])> = changed
                .iter()
                .filter_map(|k| self.flat.get(k).map(|v| (Arc::clone(k), v)))
                .collect();
            hnsw.insert(&vectors);
        }
        if let Some((_, touched)) = self.rebuilding.as_mut() {
            touched.extend(changed);
        }
        self.maintain(config)
    }

    /// Deletes `ids` of `namespace`; returns how many existed, and a graph
    /// build to run when one is due.
    pub(super) fn delete(
        &mut self,
        namespace: &str,
        ids: &[String],
        config: &InMemoryVectorsConfig,
    ) -> (usize, Option<RebuildJob>) {
        let mut removed = 0;
        for id in ids {
            let key = VectorKey::new(namespace, id.as_str());
            if self.flat.remove(&key) {
                removed += 1;
                self.hashes.remove(&key);
                if let Some(hnsw) = self.hnsw.as_mut() {
                    hnsw.remove(&key);
                }
                if let Some((_, touched)) = self.rebuilding.as_mut() {
                    touched.insert(Arc::new(key.clone()));
                }
            }
        }
        let job = if removed > 0 {
            self.maintain(config)
        } else {
            None
        };
        (removed, job)
    }

    /// Drops the graph (and any build) below half the threshold; hands out
    /// a build past the threshold, or when tombstones exceed the configured
    /// fraction, unless one is running.
    fn maintain(&mut self, config: &InMemoryVectorsConfig) -> Option<RebuildJob> {
        let n = self.flat.len();
        if n <= config.exact_threshold / 2 {
            self.hnsw = None;
            self.rebuilding = None;
            return None;
        }
        if self.rebuilding.is_some() {
            return None;
        }
        let due = match &self.hnsw {
            None => n > config.exact_threshold,
            Some(h) => h.tombstone_ratio() > config.rebuild_tombstone_fraction,
        };
        if !due {
            return None;
        }
        let generation = self.next_generation;
        self.next_generation += 1;
        self.rebuilding = Some((generation, HashSet::default()));
        Some(RebuildJob {
            generation,
            snapshot: self.flat.clone(),
            config: config.hnsw,
        })
    }

    pub(super) fn content_hash(&self, namespace: &str, id: &str) -> Option<String> {
        self.hashes.get(&VectorKey::new(namespace, id)).cloned()
    }

    /// How many vectors pass `filter` (namespace sizes are kept; an id
    /// prefix needs a scan of the namespace's keys, or of all without one).
    pub(super) fn count(&self, filter: &VectorFilter) -> usize {
        match (&filter.namespace, &filter.id_prefix) {
            (None, None) => self.flat.len(),
            (Some(ns), None) => self.flat.namespace_len(ns),
            (ns, Some(_)) => self
                .flat
                .keys_in(ns.as_deref())
                .filter(|k| filter.matches(&k.namespace, &k.id))
                .count(),
        }
    }

    /// Rows an exact search with `filter` reads: its namespace's, or all.
    fn exact_rows(&self, filter: &VectorFilter) -> usize {
        match &filter.namespace {
            Some(ns) => self.flat.namespace_len(ns),
            None => self.flat.len(),
        }
    }

    /// Rows a search with `filter` would compare exactly (the whole store
    /// unless the graph is used): the measure of its CPU cost.
    pub(super) fn search_cost(
        &self,
        filter: &VectorFilter,
        config: &InMemoryVectorsConfig,
    ) -> usize {
        match &self.hnsw {
            None => self.exact_rows(filter),
            Some(_) if self.count(filter) <= config.exact_threshold => self.exact_rows(filter),
            Some(_) => config.hnsw.ef_search.saturating_mul(64),
        }
    }

    /// The search rule: exact scan when there is no graph or when at most
    /// `exact_threshold` vectors pass the filter; otherwise the graph with
    /// the filter applied during the walk, falling back to the exact scan
    /// when it finds fewer than `min(k, passing)` hits.
    pub(super) fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
        config: &InMemoryVectorsConfig,
    ) -> Vec<VectorHit> {
        let accept = |key: &VectorKey| filter.matches(&key.namespace, &key.id);
        let exact = || match filter.namespace.as_deref() {
            // The namespace's own rows need no namespace comparison.
            Some(namespace) => self
                .flat
                .search_in(namespace, query, k, |key| filter.matches_id(&key.id)),
            None => self.flat.search(query, k, accept),
        };
        let hits = match &self.hnsw {
            None => exact(),
            Some(hnsw) => {
                let passing = self.count(filter);
                if passing <= config.exact_threshold {
                    exact()
                } else {
                    let share = passing as f64 / self.flat.len().max(1) as f64;
                    let mut found: Vec<(f32, Arc<VectorKey>)> = hnsw
                        .search(query, k, share, &accept)
                        .into_iter()
                        .filter_map(|(_, key)| self.flat.get(&key).map(|v| (dot(query, v), key)))
                        .collect();
                    if found.len() < k.min(passing) {
                        exact()
                    } else {
                        found.sort_by(|a, b| rank_order(a.0, &a.1, b.0, &b.1));
                        found.truncate(k);
                        found
                    }
                }
            }
        };
        hits.into_iter()
            .map(|(score, key)| VectorHit {
                content_hash: self.hashes.get(&key).cloned(),
                namespace: key.namespace.clone(),
                id: key.id.clone(),
                score,
            })
            .collect()
    }
}
