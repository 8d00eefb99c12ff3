//! Re-embedding every entry of long-term memory now, in bulk.

use super::LongTermMemory;
use super::backend::{ArchivedFilter, ListRequest};
use super::dense_index::scope_namespace;
use crate::MemoryError;
use crate::hybrid::{BulkReport, KeyedText, ProgressFn};

impl LongTermMemory {
    /// Embeds now every entry of every scope (archived too) whose vector is
    /// missing or was made from another text or model, with
    /// [`DenseIndex::embed_all`](crate::hybrid::DenseIndex::embed_all): each
    /// distinct text once, sorted by length in batches of the model's size,
    /// `progress` told after each batch. Returns when every vector is
    /// written (an empty report without a dense index). Unlike
    /// [`LongTermMemory::backfill_vectors`] it does not use the background
    /// queue.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] while listing; the errors of
    /// [`DenseIndex::embed_all`](crate::hybrid::DenseIndex::embed_all).
    pub async fn reembed(
        &self,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<BulkReport, MemoryError> {
        let Some(index) = self.dense_index() else {
            return Ok(BulkReport::default());
        };
        let mut request = ListRequest::all();
        request.archived = ArchivedFilter::Include;
        let mut texts = Vec::new();
        for scope in self.scopes().await? {
            let namespace = scope_namespace(&scope);
            let entries = self.scoped(scope).list(&request).await?;
            texts.extend(
                entries
                    .iter()
                    .map(|e| KeyedText::new(namespace.clone(), e.id.to_string(), e.search_text())),
            );
        }
        index.embed_all(texts, progress).await
    }
}
