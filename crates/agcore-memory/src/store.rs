use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{MemoryError, MemoryFilter, MemoryItem};

/// Options of [`MemoryStore::search`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Restricts the candidates (prefix, time range, metadata). Its `limit` is ignored.
    pub filter: MemoryFilter,
    /// At most this many results (top-k), ≥ 1. Default 10.
    pub limit: usize,
    /// Drop results scoring below this. Scores are backend-specific (BM25 is
    /// unbounded, higher is better); `None` keeps every match.
    pub min_score: Option<f64>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            filter: MemoryFilter::default(),
            limit: 10,
            min_score: None,
        }
    }
}

impl SearchOptions {
    /// Top-`limit` results.
    pub fn top_k(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// Sets the candidate filter.
    pub fn with_filter(mut self, filter: MemoryFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Restricts candidates to ids starting with `prefix`.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.filter.prefix = Some(prefix.into());
        self
    }

    /// Sets the minimum score.
    pub fn with_min_score(mut self, min_score: f64) -> Self {
        self.min_score = Some(min_score);
        self
    }
}

/// A search hit: the item and its relevance score (higher is better).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredItem {
    /// The stored item.
    pub item: MemoryItem,
    /// Relevance score; its scale depends on the scorer (BM25: unbounded ≥ 0).
    pub score: f64,
}

/// Where memories live. Implementations are `Send + Sync` and shared as
/// `Arc<dyn MemoryStore>`; every method is async and safe to call from many tasks.
#[async_trait]
pub trait MemoryStore: Send + Sync {
    /// Inserts `item`, or replaces the item with the same id (upsert).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when [`MemoryItem::validate`] fails (nothing is
    /// written); [`MemoryError::Storage`] when the backend fails.
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError>;

    /// The item with this id, or `None`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for an invalid id; [`MemoryError::Storage`].
    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError>;

    /// The items with these ids: one entry per id, in the same order
    /// (`None` for a missing id; a repeated id is answered each time).
    /// Callers that look up many ids at once — a hybrid search fetching its
    /// dense candidates — use it so that a backend can answer in one round
    /// trip (in memory: one lock; SQLite: one read task; PostgreSQL: one
    /// `= ANY($1)` query; MySQL: `IN (…)`; Redis: one pipeline). The default
    /// calls [`get`](Self::get) per id.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when any id is invalid (nothing is
    /// read); [`MemoryError::Storage`].
    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            crate::types::validate_id(id)?;
        }
        let mut items = Vec::with_capacity(ids.len());
        for id in ids {
            items.push(self.get(id).await?);
        }
        Ok(items)
    }

    /// Removes the item with this id. Deleting a missing id is not an error.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for an invalid id; [`MemoryError::Storage`].
    async fn delete(&self, id: &str) -> Result<(), MemoryError>;

    /// Items matching `filter`, ordered by `created_at` then `id`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when [`MemoryFilter::validate`] fails;
    /// [`MemoryError::Storage`].
    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError>;

    /// Upserts many items, atomically where the backend can (SQLite: one
    /// transaction). Every item is validated before anything is written.
    ///
    /// # Errors
    /// As [`MemoryStore::save`].
    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        for item in items {
            self.save(item).await?;
        }
        Ok(())
    }

    /// Number of items matching `filter` (its `limit` ignored).
    ///
    /// # Errors
    /// As [`MemoryStore::list`].
    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        let mut unlimited = filter.clone();
        unlimited.limit = None;
        Ok(self.list(&unlimited).await?.len())
    }

    /// Full-text search: the items matching `filter` that share terms with
    /// `query`, best first, at most `options.limit`.
    ///
    /// The query is literal text (no query syntax): quotes, `*`, `-`, `AND`,
    /// `NEAR(` are searched as words. Chinese and other CJK text matches
    /// Chinese text. The default implementation lists the candidates and ranks
    /// them with BM25 ([`crate::retriever`]); backends with a native index
    /// override it.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad filter or `limit == 0`;
    /// [`MemoryError::Storage`]; [`MemoryError::RetrievalError`].
    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        let mut filter = options.filter.clone();
        filter.limit = None;
        let candidates = self.list(&filter).await?;
        crate::retriever::rank_items(query, candidates, options)
    }
}

/// The answer of [`MemoryStore::get_many`] from the items a backend found
/// in any order: one entry per id of `ids`, in order, `None` where no item
/// has that id, a repeated id answered each time. For backends whose bulk
/// read (`= ANY`, `IN (…)`, a pipeline) returns rows unordered.
pub fn items_in_order(
    ids: &[String],
    found: impl IntoIterator<Item = MemoryItem>,
) -> Vec<Option<MemoryItem>> {
    let found: std::collections::HashMap<String, MemoryItem> = found
        .into_iter()
        .map(|item| (item.id.clone(), item))
        .collect();
    ids.iter().map(|id| found.get(id).cloned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_back_in_the_order_asked() {
        let ids: Vec<String> = ["b", "x", "a", "b"].map(String::from).to_vec();
        let found = vec![
            MemoryItem::new("a", "first"),
            MemoryItem::new("b", "second"),
        ];
        let got: Vec<Option<String>> = items_in_order(&ids, found)
            .into_iter()
            .map(|item| item.map(|i| i.content))
            .collect();
        assert_eq!(
            got,
            [
                Some("second".into()),
                None,
                Some("first".into()),
                Some("second".into())
            ]
        );
    }
}
