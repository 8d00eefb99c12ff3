//! The dense list of a [`HybridStore`] search: nearest own and window
//! vectors made one list, and pseudo-relevance feedback on it.

use std::collections::HashSet;

use super::rank::Lists;
use super::window::window_namespace;
use super::{DenseContext, DenseFeedback, DenseIndex, HybridStore};
use crate::retriever::fuse;
use crate::vector::{VectorFilter, VectorHit};
use crate::{MemoryError, MemoryItem, SearchOptions};

impl HybridStore {
    /// The `(id, similarity)` dense list from the nearest vectors `found`
    /// (one list per filter of [`HybridStore::dense_filters`]: own vectors,
    /// then windows with contextual embeddings), `n` asked of each; fetches
    /// the candidates the lexical list did not bring into `lists.items`.
    pub(super) async fn dense_list(
        &self,
        dense: &DenseIndex,
        found: Vec<Vec<VectorHit>>,
        n: usize,
        options: &SearchOptions,
        lists: &mut Lists<MemoryItem>,
    ) -> Result<Vec<(String, f64)>, MemoryError> {
        let mut found = found.into_iter();
        let own_hits = found.next().unwrap_or_default();
        let own_floor = DenseContext::floor(
            own_hits.len(),
            n,
            own_hits.last().map(|h| f64::from(h.score)),
        );
        // The ids whose own vector is checked here: their
        // windows take that verdict instead of a second check.
        let checked: HashSet<String> = match self.config.dense_context {
            Some(_) => own_hits
                .iter()
                .filter(|h| h.score > 0.0)
                .map(|h| h.id.clone())
                .collect(),
            None => HashSet::new(),
        };
        let own = self.fresh_hits(dense, own_hits, options, lists).await?;
        Ok(match (&self.config.dense_context, found.next()) {
            (Some(context), Some(windows)) => {
                // A window vector counts while the memory's own
                // vector is fresh (its text is what was embedded).
                let window_floor = DenseContext::floor(
                    windows.len(),
                    n,
                    windows.last().map(|h| f64::from(h.score)),
                );
                let fresh_own: HashSet<&str> = own.iter().map(|(id, _)| id.as_str()).collect();
                let (known, unknown): (Vec<_>, Vec<_>) =
                    windows.into_iter().partition(|h| checked.contains(&h.id));
                let mut windows: Vec<(String, f64)> = known
                    .into_iter()
                    .filter(|h| h.score > 0.0 && fresh_own.contains(h.id.as_str()))
                    .map(|h| (h.id, f64::from(h.score)))
                    .collect();
                let unknown = unknown
                    .into_iter()
                    .map(|h| VectorHit {
                        content_hash: None,
                        ..h
                    })
                    .collect();
                windows.extend(self.fresh_hits(dense, unknown, options, lists).await?);
                let items = &lists.items;
                let floors = (own_floor.max(0.0), window_floor.max(0.0));
                context.combine(&own, &windows, floors, |id| {
                    items.get(id).and_then(|i| context.group_value(i)).is_some()
                })
            }
            _ => own,
        })
    }

    /// Rocchio feedback ([`DenseFeedback`]): ranks `lists` once by the
    /// fusion, moves `query` towards the stored vectors of the best
    /// `feedback.depth` results and replaces `lists.dense` with the dense
    /// list searched from there; returns how many stored vectors moved the
    /// query. Leaves `lists` as they are (and returns 0) when no result has
    /// a vector of its current text.
    pub(super) async fn feed_back(
        &self,
        dense: &DenseIndex,
        feedback: &DenseFeedback,
        query: &[f32],
        n: usize,
        options: &SearchOptions,
        lists: &mut Lists<MemoryItem>,
    ) -> Result<usize, MemoryError> {
        let first: Vec<String> = fuse(&lists.lexical, &lists.dense, self.config.fusion)
            .into_iter()
            .take(feedback.depth.max(1))
            .map(|f| f.id)
            .collect();
        if first.is_empty() {
            return Ok(0);
        }
        // Only vectors of the memories' current text: a memory edited since
        // its vector was written would move the query by its old text.
        let items = &lists.items;
        let docs = dense
            .current_vectors(&self.config.namespace, &first, |id| {
                items.get(id).map(|i| i.content.as_str())
            })
            .await?;
        let Some(moved) = feedback.moved_query(query, &docs) else {
            return Ok(0);
        };
        let found = dense
            .search_each(&moved, n, &self.dense_filters(options))
            .await?;
        lists.dense = self.dense_list(dense, found, n, options, lists).await?;
        Ok(docs.len())
    }

    /// The vector filters of a dense search: the memories' own vectors and,
    /// with [`HybridConfig::dense_context`](super::HybridConfig::dense_context),
    /// their windows' — both restricted to `options.filter.prefix`.
    pub(super) fn dense_filters(&self, options: &SearchOptions) -> Vec<VectorFilter> {
        let mut filter = VectorFilter::namespace(self.config.namespace.clone());
        filter.id_prefix = options.filter.prefix.clone();
        let mut filters = vec![filter.clone()];
        if self.config.dense_context.is_some() {
            filter.namespace = Some(window_namespace(&self.config.namespace));
            filters.push(filter);
        }
        filters
    }

    /// The `(id, cosine)` list of `hits` that are current: a cosine above 0
    /// (at or below it the texts share nothing), the memory still held and
    /// passing `options.filter` (fetched into `lists.items` when the lexical
    /// list did not bring it), and its own vector made from its current
    /// text (a hit without a content hash is checked against the memory's
    /// own vector).
    pub(super) async fn fresh_hits(
        &self,
        dense: &DenseIndex,
        hits: Vec<VectorHit>,
        options: &SearchOptions,
        lists: &mut Lists<MemoryItem>,
    ) -> Result<Vec<(String, f64)>, MemoryError> {
        let hits: Vec<_> = hits.into_iter().filter(|h| h.score > 0.0).collect();
        let mut missing: Vec<String> = hits
            .iter()
            .filter(|h| !lists.items.contains_key(&h.id))
            .map(|h| h.id.clone())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        // One lookup for every candidate the lexical list did not bring.
        for item in self.inner.get_many(&missing).await?.into_iter().flatten() {
            if options.filter.matches(&item) {
                lists.items.insert(item.id.clone(), item);
            }
        }
        let items = &lists.items;
        let fresh = dense
            .fresh(&self.config.namespace, hits, |id| {
                items.get(id).map(|i| i.content.as_str())
            })
            .await?;
        Ok(fresh
            .into_iter()
            .map(|hit| (hit.id, f64::from(hit.score)))
            .collect())
    }
}
