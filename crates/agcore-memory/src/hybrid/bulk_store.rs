//! The bulk path of [`HybridStore`]: saves whose texts and windows are
//! embedded before the call returns, each once.

use super::HybridStore;
use super::bulk::{BulkReport, KeyedText, ProgressFn};
use super::window::window_namespace;
use super::window_queue::{Touched, group_windows, touched};
use crate::{MemoryError, MemoryFilter, MemoryItem};

impl HybridStore {
    /// Saves `items` (one [`MemoryStore::save_many`](crate::MemoryStore::save_many)
    /// of the inner store) and embeds them now, with
    /// [`DenseIndex::embed_all`](super::DenseIndex::embed_all): each
    /// memory's text, and with contextual embeddings
    /// ([`DenseContext`](super::DenseContext)) every window holding one of
    /// them, built once from its sequence as stored after the save. Pass a
    /// whole sequence (a dialogue, a conversation) in one call: each window
    /// is then embedded once, where saves one at a time embed a turn's
    /// window and its neighbours' again at every turn. Searches find the
    /// memories by meaning as soon as this returns. Without a dense index
    /// it is `save_many` (an empty report).
    ///
    /// # Errors
    /// Inner store errors (nothing embedded then); the errors of
    /// [`DenseIndex::embed_all`](super::DenseIndex::embed_all) (the
    /// memories stay saved and searchable by words).
    pub async fn save_bulk(
        &self,
        items: Vec<MemoryItem>,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<BulkReport, MemoryError> {
        let Some(dense) = &self.dense else {
            self.inner.save_many(items).await?;
            return Ok(BulkReport::default());
        };
        let own = self.own_texts(&items);
        let touched = match &self.config.dense_context {
            Some(context) => touched(context, &items),
            None => Vec::new(),
        };
        self.inner.save_many(items).await?;
        let texts = self.with_windows(own, touched).await?;
        dense.embed_all(texts, progress).await
    }

    /// Embeds now every memory matching `filter` and, with contextual
    /// embeddings, every window of their sequences, as
    /// [`HybridStore::save_bulk`] does after a save; vectors that are up to
    /// date cost no model call. For re-embedding a store after a model
    /// change or filling in vectors that are missing.
    ///
    /// # Errors
    /// Inner store errors while listing; the errors of
    /// [`DenseIndex::embed_all`](super::DenseIndex::embed_all).
    pub async fn reembed(
        &self,
        filter: &MemoryFilter,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<BulkReport, MemoryError> {
        let Some(dense) = &self.dense else {
            return Ok(BulkReport::default());
        };
        let texts = self.texts_to_embed(filter).await?;
        dense.embed_all(texts, progress).await
    }

    /// The texts [`HybridStore::reembed`] hands to
    /// [`DenseIndex::embed_all`](super::DenseIndex::embed_all): each memory
    /// matching `filter` under this store's namespace and, with contextual
    /// embeddings, every window of their sequences under the window
    /// namespace (each sequence listed once). Callers embedding several
    /// stores that share one index gather them into one call (one progress
    /// total). Empty without a dense index.
    ///
    /// # Errors
    /// Inner store errors while listing.
    pub async fn texts_to_embed(
        &self,
        filter: &MemoryFilter,
    ) -> Result<Vec<KeyedText>, MemoryError> {
        if self.dense.is_none() {
            return Ok(Vec::new());
        }
        let items = self.inner.list(filter).await?;
        let own = self.own_texts(&items);
        let groups = match &self.config.dense_context {
            Some(context) => touched(context, &items)
                .into_iter()
                .map(|(group, _)| (group, Vec::new()))
                .collect(),
            None => Vec::new(),
        };
        self.with_windows(own, groups).await
    }

    fn own_texts(&self, items: &[MemoryItem]) -> Vec<KeyedText> {
        items
            .iter()
            .map(|i| {
                KeyedText::new(
                    self.config.namespace.clone(),
                    i.id.clone(),
                    i.content.clone(),
                )
            })
            .collect()
    }

    /// `texts` and the windows of `touched` (each sequence listed once).
    async fn with_windows(
        &self,
        mut texts: Vec<KeyedText>,
        touched: Touched,
    ) -> Result<Vec<KeyedText>, MemoryError> {
        if let Some(context) = &self.config.dense_context {
            let namespace = window_namespace(&self.config.namespace);
            for (group, ids) in touched {
                for (id, text) in group_windows(self.inner.as_ref(), context, group, &ids).await? {
                    texts.push(KeyedText::new(namespace.clone(), id, text));
                }
            }
        }
        Ok(texts)
    }
}
