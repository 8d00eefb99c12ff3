//! The exhaustive reference searches of [`InMemoryStore`] (`testkit`
//! feature): the linear scan and the unpruned BM25 accumulation that the
//! pruned [`MemoryStore::search`] is tested and measured against.

use std::collections::HashMap;

use super::InMemoryStore;
use super::index::Index;
use crate::retriever::{
    Bm25, compare_hits, rank_items, unique_index_terms, validate_search_options,
};
use crate::{MemoryError, MemoryStore, ScoredItem, SearchOptions};

impl InMemoryStore {
    /// Searches by listing every candidate and ranking it with
    /// [`rank_items`]: the linear-scan baseline the indexed
    /// [`MemoryStore::search`] is measured against. Same results, slower.
    ///
    /// # Errors
    /// As [`MemoryStore::search`].
    #[doc(hidden)]
    pub async fn linear_scan_search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        let mut filter = options.filter.clone();
        filter.limit = None;
        let candidates = self.list(&filter).await?;
        rank_items(query, candidates, options)
    }

    /// BM25 over every item holding a query term, without pruning: the
    /// exhaustive reference the pruned [`MemoryStore::search`] equals (same
    /// hits, same scores, same order) and is measured against.
    ///
    /// # Errors
    /// As [`MemoryStore::search`].
    #[doc(hidden)]
    pub async fn exhaustive_search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        validate_search_options(options)?;
        let terms = unique_index_terms(query);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.read()?.search_exhaustive(&self.bm25, &terms, options))
    }
}

impl Index {
    /// BM25 scoring every document that holds a query term (term-at-a-time
    /// accumulation, no pruning): the reference [`Index::search`] must equal.
    pub(super) fn search_exhaustive(
        &self,
        scorer: &Bm25,
        query: &[String],
        options: &SearchOptions,
    ) -> Vec<ScoredItem> {
        let Some((n, fields)) = self.collection_stats(scorer) else {
            return Vec::new();
        };
        let mut acc: HashMap<u32, f64> = HashMap::new();
        for list in query.iter().filter_map(|t| self.lexicon.get(t)) {
            let idf = Bm25::idf(n, f64::from(list.df()));
            for p in list.entries() {
                if self.alive.get(p.slot as usize).copied().unwrap_or(false) {
                    let part = p.tf_part(&fields);
                    *acc.entry(p.slot).or_insert(0.0) += idf * part;
                }
            }
        }
        let mut hits: Vec<ScoredItem> = acc
            .into_iter()
            .filter_map(|(slot, score)| {
                let item = &self.doc(slot)?.item;
                let keep = score > 0.0
                    && score.is_finite()
                    && options.min_score.is_none_or(|min| score >= min)
                    && options.filter.matches(item);
                keep.then(|| ScoredItem {
                    item: item.clone(),
                    score,
                })
            })
            .collect();
        hits.sort_by(compare_hits);
        hits.truncate(options.limit);
        hits
    }
}
