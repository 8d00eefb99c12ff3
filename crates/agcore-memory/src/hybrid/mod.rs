//! Hybrid retrieval: lexical (BM25) and dense (embedding) search fused into
//! one ranking, with the reason for every hit.
//!
//! - [`DenseIndex`]: an embedder, its [`VectorStore`](crate::vector::VectorStore)
//!   and the background queue that embeds texts off the caller's path.
//! - [`HybridStore`]: any [`MemoryStore`] plus a `DenseIndex`, itself a
//!   `MemoryStore` whose `search` is hybrid.
//! - Long-term memory uses the same pieces
//!   ([`LongTermMemory::with_dense`](crate::long_term::LongTermMemory::with_dense)).
//! - [`HybridConfig`]: mode, [`Fusion`](crate::retriever::Fusion),
//!   candidates, similarity threshold, contextual embeddings
//!   ([`DenseContext`]), group evidence ([`GroupEvidence`]), time decay.
//! - [`ScoreBreakdown`] / [`SearchReport`]: why each memory was recalled.
//!
//! Saves return after the lexical write; until a memory's vector exists it
//! is found by its words. Bulk writes ([`HybridStore::save_bulk`],
//! [`HybridStore::reembed`], [`DenseIndex::embed_all`]) embed before they
//! return instead, each distinct text and window once, in length-sorted
//! batches of the model's size, with a progress callback. An embedding server that is down never fails a
//! save or a search: the queue retries, and searches fall back to words.

mod bulk;
mod bulk_store;
mod config;
mod context;
mod dense;
mod dense_list;
mod explain;
mod group;
mod queue;
mod queue_config;
pub(crate) mod rank;
mod search;
mod window;
mod window_queue;

use std::sync::Arc;

use async_trait::async_trait;

use crate::{MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions};

/// Rocchio feedback on the query vector, from `agcore-search`.
pub use agcore_search::DenseFeedback;
pub use bulk::{BulkReport, EmbedProgress, KeyedText, ProgressFn};
pub use config::{HybridConfig, RetrievalMode};
pub use context::{ContextConfig, ContextLists};
pub use dense::DenseIndex;
pub use explain::{CutRule, Explained, ExplainedHit, ScoreBreakdown, SearchReport};
pub use group::GroupEvidence;
pub use queue::content_hash;
pub use queue_config::{EmbeddingQueueConfig, QueueCounts};
pub use window::DenseContext;

/// A [`MemoryStore`] that adds dense retrieval to another one.
///
/// `save`, `get`, `delete`, `list` and `count` go to the inner store (plus
/// the vector side: saves queue their text for embedding, deletes remove the
/// vector); `search` runs [`HybridStore::search_explained`] and returns its
/// results with the final score. Without a dense index it is the inner store
/// with the same results. `Send + Sync`.
///
/// # Examples
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use agcore_llm::embedding::{EmbeddingModel, HashingEmbedder};
/// use agcore_memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore};
/// use agcore_memory::vector::InMemoryVectors;
/// use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
///
/// let embedder = Arc::new(HashingEmbedder::new(256));
/// let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
/// let dense = DenseIndex::new(embedder, vectors, EmbeddingQueueConfig::default())?;
/// let store = HybridStore::new(Arc::new(InMemoryStore::new()), dense, HybridConfig::default());
/// store.save(MemoryItem::new("m1", "We drove to Brighton for the weekend")).await?;
/// store.flush().await;
/// let report = store.search_explained("Brighton weekend", &SearchOptions::top_k(3)).await?;
/// let hit = report.results().next().unwrap();
/// assert_eq!(hit.item.id, "m1");
/// assert!(hit.breakdown.lexical.is_some() && hit.breakdown.dense.is_some());
/// # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
/// ```
#[derive(Clone)]
pub struct HybridStore {
    inner: Arc<dyn MemoryStore>,
    dense: Option<Arc<DenseIndex>>,
    config: HybridConfig,
    /// Background tasks queueing window texts ([`DenseContext`]).
    tasks: window_queue::InFlight,
}

impl std::fmt::Debug for HybridStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridStore")
            .field("dense", &self.dense)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HybridStore {
    /// Adds `dense` to `inner`.
    pub fn new(inner: Arc<dyn MemoryStore>, dense: Arc<DenseIndex>, config: HybridConfig) -> Self {
        Self {
            inner,
            dense: Some(dense),
            config,
            tasks: window_queue::InFlight::default(),
        }
    }

    /// `inner` with lexical search only (what it would do alone), for code
    /// that takes a `HybridStore` whether or not an embedder is configured.
    pub fn lexical(inner: Arc<dyn MemoryStore>) -> Self {
        Self {
            inner,
            dense: None,
            config: HybridConfig::default().with_mode(RetrievalMode::Lexical),
            tasks: window_queue::InFlight::default(),
        }
    }

    /// Replaces the settings (without a dense index the mode stays lexical).
    #[must_use]
    pub fn with_config(mut self, config: HybridConfig) -> Self {
        self.config = config;
        self
    }

    /// The settings.
    pub fn config(&self) -> &HybridConfig {
        &self.config
    }

    /// Another handle on the same store and dense index that searches with
    /// `mode` (for comparing modes on one ingested store).
    pub fn view(&self, mode: RetrievalMode) -> Self {
        Self {
            config: self.config.clone().with_mode(mode),
            ..self.clone()
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &Arc<dyn MemoryStore> {
        &self.inner
    }

    /// The dense index, when configured.
    pub fn dense(&self) -> Option<&Arc<DenseIndex>> {
        self.dense.as_ref()
    }

    /// The embedding queue's counters (zero without a dense index).
    pub fn queue_counts(&self) -> QueueCounts {
        self.dense.as_ref().map(|d| d.counts()).unwrap_or_default()
    }

    /// Waits for the embedding queue ([`DenseIndex::flush`]), window texts
    /// ([`DenseContext`]) of earlier writes included.
    pub async fn flush(&self) {
        if let Some(dense) = &self.dense {
            self.wait_windows().await;
            dense.flush().await;
        }
    }

    /// Queues every memory matching `filter` for embedding; those whose
    /// vector is up to date are skipped by the queue without a model call.
    /// Returns how many were queued (0 without a dense index).
    ///
    /// # Errors
    /// Inner store errors while listing.
    pub async fn backfill(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        let Some(dense) = &self.dense else {
            return Ok(0);
        };
        let items = self.inner.list(filter).await?;
        for item in &items {
            dense
                .enqueue(&self.config.namespace, &item.id, &item.content)
                .await;
        }
        if let Some(context) = &self.config.dense_context {
            let groups = window_queue::touched(context, &items)
                .into_iter()
                .map(|(group, _)| (group, Vec::new()))
                .collect();
            self.queue_windows(groups);
        }
        Ok(items.len())
    }
}

#[async_trait]
impl MemoryStore for HybridStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        self.save_many(vec![item]).await
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        self.inner.get(id).await
    }

    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        self.inner.get_many(ids).await
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        let touched = match (&self.dense, &self.config.dense_context) {
            (Some(_), Some(context)) => match self.inner.get(id).await? {
                Some(item) => window_queue::touched(context, &[item]),
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        self.inner.delete(id).await?;
        if let Some(dense) = &self.dense {
            let ids = [id.to_owned()];
            dense.remove(&self.config.namespace, &ids).await?;
            if self.config.dense_context.is_some() {
                let windows = window::window_namespace(&self.config.namespace);
                dense.remove(&windows, &ids).await?;
            }
            // The neighbours' windows no longer hold the removed text.
            self.queue_windows(touched.into_iter().map(|(g, _)| (g, Vec::new())).collect());
        }
        Ok(())
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        self.inner.list(filter).await
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        let texts: Vec<(String, String)> = items
            .iter()
            .map(|i| (i.id.clone(), i.content.clone()))
            .collect();
        let touched = match (&self.dense, &self.config.dense_context) {
            (Some(_), Some(context)) => window_queue::touched(context, &items),
            _ => Vec::new(),
        };
        self.inner.save_many(items).await?;
        if let Some(dense) = &self.dense {
            for (id, text) in texts {
                dense.enqueue(&self.config.namespace, &id, &text).await;
            }
            self.queue_windows(touched);
        }
        Ok(())
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        self.inner.count(filter).await
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        let report = self.search_explained(query, options).await?;
        Ok(report
            .into_results()
            .map(|h| ScoredItem {
                score: h.breakdown.score,
                item: h.item,
            })
            .collect())
    }
}
