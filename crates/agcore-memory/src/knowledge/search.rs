//! Full-text search over the pages.

use super::page::page_from_item;
use super::{KnowledgeStore, PAGE_PREFIX, ScoredPage};
use crate::{KnowledgePage, MemoryError, SearchOptions};

impl KnowledgeStore {
    /// Pages matching `query` (BM25 over title, summary, tags and body via
    /// [`MemoryStore::search`](crate::MemoryStore::search)), best first, at most 20.
    ///
    /// # Errors
    /// As [`Self::search_scored`].
    pub async fn search(&self, query: &str) -> Result<Vec<KnowledgePage>, MemoryError> {
        Ok(self
            .search_scored(query, 20)
            .await?
            .into_iter()
            .map(|s| s.page)
            .collect())
    }

    /// Pages matching `query` with their scores, best first, at most `limit`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when `limit` is 0; the store's errors.
    pub async fn search_scored(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<ScoredPage>, MemoryError> {
        let options = SearchOptions::top_k(limit).with_prefix(PAGE_PREFIX);
        self.store
            .search(query, &options)
            .await?
            .into_iter()
            .map(|hit| {
                Ok(ScoredPage {
                    page: page_from_item(&hit.item)?,
                    score: hit.score,
                })
            })
            .collect()
    }
}
