//! The data of an [`InMemoryVectors`](super::InMemoryVectors) and its
//! synchronous operations (run inline or on a blocking thread).

use std::sync::Arc;

use foldhash::HashMap;

use super::config::InMemoryVectorsConfig;
use super::flat::FlatIndex;
use super::hnsw::HnswIndex;
use super::key::{VectorKey, dot, rank_order};
use super::{VectorFilter, VectorHit, VectorRecord};

/// Vectors, content hashes, per-namespace counts and, above the exact
/// threshold, the HNSW graph.
#[derive(Debug)]
pub(super) struct State {
    pub(super) flat: FlatIndex,
    hashes: HashMap<Arc<VectorKey>, String>,
    namespaces: HashMap<String, usize>,
    pub(super) hnsw: Option<HnswIndex>,
}

impl State {
    pub(super) fn new(dimensions: usize) -> Self {
        Self {
            flat: FlatIndex::new(dimensions),
            hashes: HashMap::default(),
            namespaces: HashMap::default(),
            hnsw: None,
        }
    }

    /// Applies prepared (validated, normalised, deduplicated) records.
    pub(super) fn upsert(&mut self, records: Vec<VectorRecord>, config: &InMemoryVectorsConfig) {
        let mut changed = Vec::with_capacity(records.len());
        for record in records {
            let key = VectorKey::new(record.namespace, record.id);
            let Some((shared, replaced)) = self.flat.upsert(key, &record.vector) else {
                continue;
            };
            if !replaced {
                *self.namespaces.entry(shared.namespace.clone()).or_default() += 1;
            }
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
        self.maintain(config);
    }

    /// Deletes `ids` of `namespace`; returns how many existed.
    pub(super) fn delete(
        &mut self,
        namespace: &str,
        ids: &[String],
        config: &InMemoryVectorsConfig,
    ) -> usize {
        let mut removed = 0;
        for id in ids {
            let key = VectorKey::new(namespace, id.as_str());
            if self.flat.remove(&key) {
                removed += 1;
                self.hashes.remove(&key);
                if let Some(hnsw) = self.hnsw.as_mut() {
                    hnsw.remove(&key);
                }
                if let Some(n) = self.namespaces.get_mut(namespace) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.namespaces.remove(namespace);
                    }
                }
            }
        }
        if removed > 0 {
            self.maintain(config);
        }
        removed
    }

    /// Builds the graph past the threshold, drops it below half of it,
    /// rebuilds it when tombstones exceed the configured fraction.
    fn maintain(&mut self, config: &InMemoryVectorsConfig) {
        let n = self.flat.len();
        let rebuild = match &self.hnsw {
            None => n > config.exact_threshold,
            Some(h) => h.tombstone_ratio() > config.rebuild_tombstone_fraction,
        };
        if self.hnsw.is_some() && n <= config.exact_threshold / 2 {
            self.hnsw = None;
        } else if rebuild {
            self.hnsw = Some(HnswIndex::build(config.hnsw, &self.flat));
        }
    }

    pub(super) fn content_hash(&self, namespace: &str, id: &str) -> Option<String> {
        self.hashes.get(&VectorKey::new(namespace, id)).cloned()
    }

    /// How many vectors pass `filter` (namespace counts are kept; an id
    /// prefix needs a scan of the keys).
    pub(super) fn count(&self, filter: &VectorFilter) -> usize {
        match (&filter.namespace, &filter.id_prefix) {
            (None, None) => self.flat.len(),
            (Some(ns), None) => self.namespaces.get(ns).copied().unwrap_or(0),
            _ => self
                .flat
                .iter()
                .filter(|(k, _)| filter.matches(&k.namespace, &k.id))
                .count(),
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
            None => self.flat.len(),
            Some(_) if self.count(filter) <= config.exact_threshold => self.flat.len(),
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
        let exact = || self.flat.search(query, k, accept);
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
                namespace: key.namespace.clone(),
                id: key.id.clone(),
                score,
            })
            .collect()
    }
}
