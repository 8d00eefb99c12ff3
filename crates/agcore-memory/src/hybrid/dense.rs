//! [`DenseIndex`]: an embedder, the vectors it made, and the background
//! queue that keeps them up to date — shared by every memory that searches
//! by meaning ([`HybridStore`](super::HybridStore), long-term memory).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use agcore_llm::embedding::EmbeddingModel;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio::task::JoinHandle;

use super::queue::{Job, QueueStats, Worker};
use super::queue_config::{EmbeddingQueueConfig, QueueCounts};
use crate::MemoryError;
use crate::vector::{VectorFilter, VectorHit, VectorStore, check_space};

/// An embedder, a [`VectorStore`] of its vectors and a background queue
/// that embeds texts in batches off the caller's path. Share it as
/// `Arc<DenseIndex>`; `Send + Sync`.
///
/// A text is identified by `(namespace, id)`. Its vector is stored with
/// [`content_hash`](super::content_hash)`(model, text)`, so a text that did
/// not change is never embedded again (re-saves, re-imports, backfills).
/// Failed embedding calls never reach the caller: recoverable failures are
/// retried with exponential back-off, others are logged and dropped (the
/// text stays searchable by words).
pub struct DenseIndex {
    embedder: Arc<dyn EmbeddingModel>,
    vectors: Arc<dyn VectorStore>,
    tx: mpsc::Sender<Job>,
    stats: Arc<QueueStats>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for DenseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseIndex")
            .field("space", self.vectors.space())
            .field("counts", &self.counts())
            .finish_non_exhaustive()
    }
}

impl DenseIndex {
    /// Starts the queue of `embedder` writing into `vectors`.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when `vectors` holds another
    /// model's vectors; [`MemoryError::InvalidInput`] outside a Tokio runtime.
    pub fn new(
        embedder: Arc<dyn EmbeddingModel>,
        vectors: Arc<dyn VectorStore>,
        config: EmbeddingQueueConfig,
    ) -> Result<Arc<Self>, MemoryError> {
        check_space(vectors.space(), &embedder.space())?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            MemoryError::InvalidInput("the embedding queue needs a Tokio runtime".into())
        })?;
        let stats = Arc::new(QueueStats::default());
        let (tx, rx) = mpsc::channel(config.capacity.max(1));
        let worker = Worker {
            embedder: Arc::clone(&embedder),
            vectors: Arc::clone(&vectors),
            batch_size: config.batch_size.max(1),
            retry_delay: Duration::from_millis(config.retry_delay_ms),
            stats: Arc::clone(&stats),
        };
        let handle = runtime.spawn(worker.run(rx));
        Ok(Arc::new(Self {
            embedder,
            vectors,
            tx,
            stats,
            worker: Mutex::new(Some(handle)),
        }))
    }

    /// The embedder.
    pub fn embedder(&self) -> &Arc<dyn EmbeddingModel> {
        &self.embedder
    }

    /// The vector store.
    pub fn vectors(&self) -> &Arc<dyn VectorStore> {
        &self.vectors
    }

    /// The queue's counters.
    pub fn counts(&self) -> QueueCounts {
        QueueCounts {
            pending: self.stats.pending.load(Ordering::Relaxed),
            embedded: self.stats.embedded.load(Ordering::Relaxed),
            skipped: self.stats.skipped.load(Ordering::Relaxed),
            failures: self.stats.failures.load(Ordering::Relaxed),
        }
    }

    /// Queues `text` to be embedded as the vector of `(namespace, id)`;
    /// a later text for the same key replaces a queued one. Waits only when
    /// the queue is full.
    pub async fn enqueue(&self, namespace: &str, id: &str, text: &str) {
        self.stats.pending.fetch_add(1, Ordering::Relaxed);
        let job = Job::Embed {
            key: (namespace.to_owned(), id.to_owned()),
            text: text.to_owned(),
        };
        if self.tx.send(job).await.is_err() {
            self.stats.pending.fetch_sub(1, Ordering::Relaxed);
            tracing::warn!("the embedding queue is closed; the text is searchable by words only");
        }
    }

    /// Removes the vectors of `ids` in `namespace` and drops their queued texts.
    ///
    /// # Errors
    /// Vector store errors.
    pub async fn remove(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        for id in ids {
            let key = (namespace.to_owned(), id.clone());
            let _ = self.tx.send(Job::Delete { key }).await;
        }
        self.vectors.delete(namespace, ids).await
    }

    /// Waits until every text queued before this call has been embedded and
    /// written, or has failed once (it then waits for its retry and
    /// [`QueueCounts::pending`] says so).
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Job::Flush(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Flushes, then stops the queue; later texts are not embedded.
    pub async fn close(&self) {
        self.flush().await;
        if let Some(handle) = self.worker.lock().await.take() {
            handle.abort();
        }
    }

    /// Keeps the hits whose stored vector was computed from the text the
    /// memory holds now (`current(id)`, `None` when the memory is gone; it
    /// may lend the text, `&str`, or give it, `String`): a
    /// vector left from a replaced text must not recall the new one. The
    /// hash a hit carries ([`VectorHit::content_hash`], read with the vector
    /// it scored) is compared; hits without one are looked up, which a
    /// vector written after the search could answer.
    ///
    /// # Errors
    /// Vector store errors.
    pub async fn fresh<T: AsRef<str>>(
        &self,
        namespace: &str,
        hits: Vec<VectorHit>,
        current: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<VectorHit>, MemoryError> {
        let missing: Vec<String> = hits
            .iter()
            .filter(|h| h.content_hash.is_none())
            .map(|h| h.id.clone())
            .collect();
        let mut looked_up = if missing.is_empty() {
            Vec::new()
        } else {
            self.vectors.content_hashes(namespace, &missing).await?
        }
        .into_iter();
        let model = self.embedder.model_id();
        let mut kept = Vec::with_capacity(hits.len());
        for hit in hits {
            let stored = match &hit.content_hash {
                Some(hash) => Some(hash.clone()),
                None => looked_up.next().flatten(),
            };
            let is_fresh = current(&hit.id).is_some_and(|text| {
                stored.as_deref() == Some(super::content_hash(model, text.as_ref()).as_str())
            });
            if is_fresh {
                kept.push(hit);
            }
        }
        Ok(kept)
    }

    /// The stored vectors of `ids` in `namespace` that were made from the
    /// memory's current text (`current(id)`, checked against the stored
    /// content hash), in the order of `ids`; stale and missing ones left out.
    ///
    /// # Errors
    /// Vector store errors.
    pub async fn current_vectors<T: AsRef<str>>(
        &self,
        namespace: &str,
        ids: &[String],
        current: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<Vec<f32>>, MemoryError> {
        let hashes = self.vectors.content_hashes(namespace, ids).await?;
        let vectors = self.vectors.vectors(namespace, ids).await?;
        let model = self.embedder.model_id();
        Ok(ids
            .iter()
            .zip(hashes)
            .zip(vectors)
            .filter_map(|((id, hash), vector)| {
                let text = current(id)?;
                let fresh =
                    hash.as_deref() == Some(super::content_hash(model, text.as_ref()).as_str());
                fresh.then_some(vector).flatten()
            })
            .collect())
    }

    /// The `k` nearest vectors to the embedding of `query` passing `filter`,
    /// and the time the query embedding took.
    ///
    /// # Errors
    /// [`MemoryError::Embedding`] when the query cannot be embedded (the
    /// caller falls back to lexical search); vector store errors.
    pub async fn nearest(
        &self,
        query: &str,
        k: usize,
        filter: &VectorFilter,
    ) -> Result<(Vec<VectorHit>, Duration), MemoryError> {
        let (mut lists, embed) = self
            .nearest_each(query, k, std::slice::from_ref(filter))
            .await?;
        Ok((lists.pop().unwrap_or_default(), embed))
    }

    /// [`DenseIndex::nearest`] for each of `filters` with one query
    /// embedding: one list per filter, in order.
    ///
    /// # Errors
    /// As [`DenseIndex::nearest`].
    pub async fn nearest_each(
        &self,
        query: &str,
        k: usize,
        filters: &[VectorFilter],
    ) -> Result<(Vec<Vec<VectorHit>>, Duration), MemoryError> {
        let (vector, embed) = self.embed_query(query).await?;
        Ok((self.search_each(&vector, k, filters).await?, embed))
    }

    /// The embedding of `query` as a query, and the time it took.
    ///
    /// # Errors
    /// [`MemoryError::Embedding`] when the model or its server fails.
    pub async fn embed_query(&self, query: &str) -> Result<(Vec<f32>, Duration), MemoryError> {
        let started = Instant::now();
        let vector = self
            .embedder
            .embed_query(query)
            .await
            .map_err(|e| MemoryError::Embedding(e.to_string()))?;
        Ok((vector, started.elapsed()))
    }

    /// The `k` nearest stored vectors to `vector` for each of `filters`:
    /// one list per filter, in order.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a vector outside the model's space;
    /// vector store errors.
    pub async fn search_each(
        &self,
        vector: &[f32],
        k: usize,
        filters: &[VectorFilter],
    ) -> Result<Vec<Vec<VectorHit>>, MemoryError> {
        // The searches run concurrently: an in-memory index scans each on
        // its own blocking thread, a database answers them on separate
        // connections.
        futures::future::try_join_all(
            filters
                .iter()
                .map(|filter| self.vectors.search(vector, k, filter)),
        )
        .await
    }
}
