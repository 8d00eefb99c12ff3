//! The search rule of [`InMemoryVectors`](super::InMemoryVectors): per
//! namespace, an exact scan of its rows or a walk of its HNSW graph.

use std::sync::Arc;

use super::config::InMemoryVectorsConfig;
use super::state::State;
use super::{VectorFilter, VectorHit};
use agcore_search::vector::{VectorKey, dot, rank_order};

impl State {
    /// How many vectors pass `filter` (namespace sizes are kept; an id
    /// prefix needs a scan of the namespace's keys, or of all without one).
    pub(super) fn count(&self, filter: &VectorFilter) -> usize {
        match (&filter.namespace, &filter.id_prefix) {
            (Some(ns), _) => self.count_in(ns, filter),
            (None, None) => self.flat.len(),
            (None, Some(_)) => self
                .flat
                .keys_in(None)
                .filter(|k| filter.matches_id(&k.id))
                .count(),
        }
    }

    /// How many vectors of `namespace` pass the id prefix of `filter`.
    fn count_in(&self, namespace: &str, filter: &VectorFilter) -> usize {
        match &filter.id_prefix {
            None => self.flat.namespace_len(namespace),
            Some(_) => self
                .flat
                .keys_in(Some(namespace))
                .filter(|k| filter.matches_id(&k.id))
                .count(),
        }
    }

    /// Whether a search of `namespace` walks its graph: it has one and
    /// more than `exact_threshold` of its vectors pass `filter`.
    fn walks_graph(
        &self,
        namespace: &str,
        filter: &VectorFilter,
        config: &InMemoryVectorsConfig,
    ) -> bool {
        self.graphs.contains_key(namespace)
            && self.count_in(namespace, filter) > config.exact_threshold
    }

    /// Rows a search with `filter` would compare (a namespace walking its
    /// graph counts as `64 · ef_search`): the measure of its CPU cost.
    pub(super) fn search_cost(
        &self,
        filter: &VectorFilter,
        config: &InMemoryVectorsConfig,
    ) -> usize {
        let walk = config.hnsw.ef_search.saturating_mul(64);
        let cost = |namespace: &str, rows: usize| {
            if self.walks_graph(namespace, filter, config) {
                walk
            } else {
                rows
            }
        };
        match &filter.namespace {
            Some(ns) => cost(ns, self.flat.namespace_len(ns)),
            None if self.graphs.is_empty() => self.flat.len(),
            None => self
                .flat
                .namespaces()
                .map(|(ns, rows)| cost(ns, rows))
                .fold(0, usize::saturating_add),
        }
    }

    /// The search rule: each namespace the filter admits is scanned exactly
    /// when it has no graph or at most `exact_threshold` of its vectors
    /// pass the filter; otherwise its graph is walked, falling back to the
    /// exact scan when the walk finds fewer than `min(k, passing)` hits.
    /// A search across namespaces merges their top `k`.
    pub(super) fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
        config: &InMemoryVectorsConfig,
    ) -> Vec<VectorHit> {
        let hits = match filter.namespace.as_deref() {
            Some(namespace) => self.search_namespace(namespace, query, k, filter, config),
            None if self.graphs.is_empty() => {
                self.flat.search(query, k, |key| filter.matches_id(&key.id))
            }
            None => {
                let mut merged: Vec<(f32, Arc<VectorKey>)> = self
                    .flat
                    .namespaces()
                    .flat_map(|(ns, _)| self.search_namespace(ns, query, k, filter, config))
                    .collect();
                merged.sort_by(|a, b| rank_order(a.0, &a.1, b.0, &b.1));
                merged.truncate(k);
                merged
            }
        };
        hits.into_iter()
            .map(|(score, key)| VectorHit {
                content_hash: self.hash_of(&key),
                namespace: key.namespace.clone(),
                id: key.id.clone(),
                score,
            })
            .collect()
    }

    /// The `k` best of `namespace` passing the id prefix of `filter`, best
    /// first.
    fn search_namespace(
        &self,
        namespace: &str,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
        config: &InMemoryVectorsConfig,
    ) -> Vec<(f32, Arc<VectorKey>)> {
        // The namespace's own rows need no namespace comparison.
        let exact = || {
            self.flat
                .search_in(namespace, query, k, |key| filter.matches_id(&key.id))
        };
        let Some(graph) = self.graphs.get(namespace) else {
            return exact();
        };
        let passing = self.count_in(namespace, filter);
        if passing <= config.exact_threshold {
            return exact();
        }
        let share = passing as f64 / self.flat.namespace_len(namespace).max(1) as f64;
        let accept = |key: &VectorKey| filter.matches_id(&key.id);
        let mut found: Vec<(f32, Arc<VectorKey>)> = graph
            .search(query, k, share, &accept)
            .into_iter()
            .filter_map(|(_, key)| self.flat.get(&key).map(|v| (dot(query, v), key)))
            .collect();
        if found.len() < k.min(passing) {
            return exact();
        }
        found.sort_by(|a, b| rank_order(a.0, &a.1, b.0, &b.1));
        found.truncate(k);
        found
    }
}
