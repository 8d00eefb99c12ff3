//! [`HybridStore`]: any [`MemoryStore`] plus dense vectors, searched by
//! lexical and dense retrieval fused into one ranking.
//!
//! Saves return after the inner store's write: texts are embedded by a
//! bounded background queue in batches and written to the
//! [`VectorStore`]; until its vector exists a memory is found by its words.
//! Vectors whose text and model are unchanged are never recomputed (the
//! content hash of [`content_hash`] is stored with each vector). An embedding
//! server that is down never fails a save: the batch is retried with
//! exponential back-off while searches fall back to lexical results.

mod config;
mod explain;
mod queue;
mod search;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use agcore_llm::embedding::EmbeddingModel;
use async_trait::async_trait;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::vector::{VectorStore, check_space};
use crate::{MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions};

pub use config::{HybridConfig, RetrievalMode};
pub use explain::{CutRule, ExplainedHit, ScoreBreakdown, SearchReport};
pub use queue::content_hash;
use queue::{Job, QueueStats, Worker};

/// The dense side of a [`HybridStore`]: an embedder and where its vectors live.
struct Dense {
    embedder: Arc<dyn EmbeddingModel>,
    vectors: Arc<dyn VectorStore>,
    tx: mpsc::Sender<Job>,
}

/// Counters of the embedding queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueCounts {
    /// Texts waiting to be embedded (including batches waiting for a retry).
    pub pending: usize,
    /// Texts embedded and written since the store was opened.
    pub embedded: u64,
    /// Texts skipped because their stored vector was up to date.
    pub skipped: u64,
    /// Embedding calls that failed (recoverable ones are retried).
    pub failures: u64,
}

/// A [`MemoryStore`] that adds dense retrieval to another one.
///
/// `save`, `get`, `delete`, `list` and `count` go to the inner store (plus
/// the vector side); `search` runs [`HybridStore::search_explained`] and
/// returns its results with the final score. Without an embedder it is the
/// inner store with the same results.
///
/// Needs a Tokio runtime (the queue is a spawned task). `Send + Sync`.
///
/// # Examples
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use agcore_llm::embedding::HashingEmbedder;
/// use agcore_memory::hybrid::{HybridConfig, HybridStore};
/// use agcore_memory::vector::InMemoryVectors;
/// use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
///
/// let embedder = Arc::new(HashingEmbedder::new(256));
/// let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
/// let store = HybridStore::new(Arc::new(InMemoryStore::new()), embedder, vectors, HybridConfig::default())?;
/// store.save(MemoryItem::new("m1", "We drove to Brighton for the weekend")).await?;
/// store.flush().await;
/// let report = store.search_explained("Brighton weekend", &SearchOptions::top_k(3)).await?;
/// let hit = report.results().next().unwrap();
/// assert_eq!(hit.item.id, "m1");
/// assert!(hit.breakdown.lexical.is_some() && hit.breakdown.dense.is_some());
/// # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
/// ```
pub struct HybridStore {
    inner: Arc<dyn MemoryStore>,
    dense: Option<Arc<Dense>>,
    config: HybridConfig,
    stats: Arc<QueueStats>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for HybridStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridStore")
            .field("model", &self.dense.as_ref().map(|d| d.embedder.space()))
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HybridStore {
    /// Adds `embedder` and `vectors` to `inner` and starts the embedding queue.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when `vectors` holds another model's
    /// vectors; [`MemoryError::InvalidInput`] outside a Tokio runtime.
    pub fn new(
        inner: Arc<dyn MemoryStore>,
        embedder: Arc<dyn EmbeddingModel>,
        vectors: Arc<dyn VectorStore>,
        config: HybridConfig,
    ) -> Result<Self, MemoryError> {
        check_space(vectors.space(), &embedder.space())?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            MemoryError::InvalidInput("HybridStore::new needs a Tokio runtime".into())
        })?;
        let stats = Arc::new(QueueStats::default());
        let (tx, rx) = mpsc::channel(config.queue_capacity.max(1));
        let worker = Worker {
            embedder: Arc::clone(&embedder),
            vectors: Arc::clone(&vectors),
            namespace: config.namespace.clone(),
            batch_size: config.batch_size,
            retry_delay: config.retry_delay,
            stats: Arc::clone(&stats),
        };
        let handle = runtime.spawn(worker.run(rx));
        Ok(Self {
            inner,
            dense: Some(Arc::new(Dense {
                embedder,
                vectors,
                tx,
            })),
            config,
            stats,
            worker: Mutex::new(Some(handle)),
        })
    }

    /// `inner` with lexical search only (what it would do alone), for code
    /// that takes a `HybridStore` whether or not an embedder is configured.
    pub fn lexical(inner: Arc<dyn MemoryStore>) -> Self {
        Self {
            inner,
            dense: None,
            config: HybridConfig::default().with_mode(config::RetrievalMode::Lexical),
            stats: Arc::new(QueueStats::default()),
            worker: Mutex::new(None),
        }
    }

    /// The settings.
    pub fn config(&self) -> &HybridConfig {
        &self.config
    }

    /// A second handle on the same store, embedder, vectors and queue that
    /// searches with `mode` (for comparing modes on one ingested store).
    /// Closing the view does not stop the queue.
    pub fn view(&self, mode: RetrievalMode) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            dense: self.dense.clone(),
            config: self.config.clone().with_mode(mode),
            stats: Arc::clone(&self.stats),
            worker: Mutex::new(None),
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &Arc<dyn MemoryStore> {
        &self.inner
    }

    /// The embedder, when dense retrieval is configured.
    pub fn embedder(&self) -> Option<&Arc<dyn EmbeddingModel>> {
        self.dense.as_ref().map(|d| &d.embedder)
    }

    /// The vector store, when dense retrieval is configured.
    pub fn vectors(&self) -> Option<&Arc<dyn VectorStore>> {
        self.dense.as_ref().map(|d| &d.vectors)
    }

    /// The queue's counters.
    pub fn queue_counts(&self) -> QueueCounts {
        QueueCounts {
            pending: self.stats.pending.load(Ordering::Relaxed),
            embedded: self.stats.embedded.load(Ordering::Relaxed),
            skipped: self.stats.skipped.load(Ordering::Relaxed),
            failures: self.stats.failures.load(Ordering::Relaxed),
        }
    }

    /// Waits until every text queued before this call has been embedded and
    /// written, or has failed once (then it waits for its retry and
    /// [`QueueCounts::pending`] says so). Returns at once without an embedder.
    pub async fn flush(&self) {
        if let Some(dense) = &self.dense {
            let (tx, rx) = oneshot::channel();
            if dense.tx.send(Job::Flush(tx)).await.is_ok() {
                let _ = rx.await;
            }
        }
    }

    /// Queues every memory matching `filter` for embedding; those whose
    /// vector is up to date are skipped by the queue without a model call.
    /// Returns how many were queued (0 without an embedder).
    ///
    /// # Errors
    /// Inner store errors while listing.
    pub async fn backfill(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        if self.dense.is_none() {
            return Ok(0);
        }
        let items = self.inner.list(filter).await?;
        let n = items.len();
        for item in items {
            self.enqueue(item.id, item.content).await;
        }
        Ok(n)
    }

    /// Flushes the queue and stops its task. Saves after this are lexical only.
    pub async fn close(&self) {
        self.flush().await;
        if let Some(handle) = self.worker.lock().await.take() {
            handle.abort();
        }
    }

    async fn enqueue(&self, id: String, text: String) {
        if let Some(dense) = &self.dense {
            self.stats.pending.fetch_add(1, Ordering::Relaxed);
            if dense.tx.send(Job::Embed { id, text }).await.is_err() {
                self.stats.pending.fetch_sub(1, Ordering::Relaxed);
                tracing::warn!("embedding queue is closed; the memory is searchable by words only");
            }
        }
    }
}

#[async_trait]
impl MemoryStore for HybridStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        let (id, content) = (item.id.clone(), item.content.clone());
        self.inner.save(item).await?;
        self.enqueue(id, content).await;
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        self.inner.get(id).await
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        self.inner.delete(id).await?;
        if let Some(dense) = &self.dense {
            let _ = dense.tx.send(Job::Delete { id: id.to_owned() }).await;
            dense
                .vectors
                .delete(&self.config.namespace, &[id.to_owned()])
                .await?;
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
        self.inner.save_many(items).await?;
        for (id, text) in texts {
            self.enqueue(id, text).await;
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
            .hits
            .into_iter()
            .filter(|h| h.breakdown.cut.is_none())
            .map(|h| ScoredItem {
                score: h.breakdown.score,
                item: h.item,
            })
            .collect())
    }
}
