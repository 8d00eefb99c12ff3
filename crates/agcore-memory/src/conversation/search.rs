//! [`ConversationMemory::search`]: finding earlier messages of a session.

use super::{ConversationMemory, StoredMessage};
use crate::{MemoryError, SearchOptions};

impl ConversationMemory {
    /// The messages of this session most relevant to `query`, best first,
    /// at most `limit`, with their scores. It searches through the store's
    /// own `search`: BM25 on any store, hybrid lexical + dense retrieval
    /// when the store is a [`HybridStore`](crate::hybrid::HybridStore).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when `limit` is 0; [`MemoryError::Serialization`]
    /// for a stored message that cannot be decoded; the store's errors.
    pub async fn search(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(StoredMessage, f64)>, MemoryError> {
        let options = SearchOptions::top_k(limit).with_prefix(self.prefix());
        self.store
            .search(query, &options)
            .await?
            .into_iter()
            .map(|hit| Ok((Self::from_item(&hit.item)?, hit.score)))
            .collect()
    }
}
