//! [`InMemoryStore`]: the default [`MemoryStore`], in process memory.

mod context;
mod doc;
mod eviction;
#[cfg(feature = "testkit")]
mod exhaustive;
mod index;
mod lexicon;
mod postings;
mod results;
mod sealing;
mod segments;
mod topk;
mod write;

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::retriever::{Bm25, ContextField, unique_index_terms, validate_search_options};
use crate::{
    EvictionConfig, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
    validate_id,
};
use async_trait::async_trait;
use doc::Analyzed;
use index::Index;

/// A thread-safe, volatile [`MemoryStore`] (see `docs/memory.md`, *Stores*).
///
/// Items live in a slot table guarded by one `RwLock` (never held across an
/// `.await`), beside three indexes: ids (ordered, so a prefix is a range
/// scan), creation time (list order and eviction) and an inverted index of
/// terms with their frequencies and document lengths. Items of a sequence
/// (metadata `session`, see [`ContextField`]) also get a context field of
/// their neighbours' terms, weighted one half; [`MemoryStore::search`]
/// returns the exact BM25F top-k (plain BM25 for items without context,
/// see [`Bm25F`](crate::retriever::Bm25F)) with MaxScore dynamic pruning (Turtle &
/// Flood 1995) over posting lists ordered by an internal document number:
/// once `k` results are held, documents that can only hold the query's
/// low-bound terms are skipped, so the cost follows the rarer terms'
/// postings rather than every match. New items are sealed, every
/// [`InMemoryStore::with_segment_size`] items, into segments ordered by id
/// and merged in tiers (as in log-structured merge trees); since results
/// break score ties by id, a search whose k-th score is shared by many items
/// skips the rest of each segment once a tie is lost there.
/// The exhaustive reference search kept for tests (`testkit` feature) scores
/// every match and returns the same results.
///
/// [`EvictionConfig`] is applied after every `check_interval` writes: TTL drops
/// items with `created_at` at or before `now − ttl`; capacity drops the oldest
/// by `created_at`, then id, until `max_items` remain.
///
/// # Examples
/// ```
/// # tokio_test_block_on(async {
/// use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
/// let store = InMemoryStore::new();
/// store.save(MemoryItem::new("note:1", "The user prefers short answers")).await?;
/// let hits = store.search("short answers", &SearchOptions::default()).await?;
/// assert_eq!(hits[0].item.id, "note:1");
/// # Ok::<(), agcore_memory::MemoryError>(()) });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub struct InMemoryStore {
    inner: RwLock<Index>,
    eviction: EvictionConfig,
    bm25: Bm25,
}

impl Default for InMemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for InMemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let len = self.inner.read().map(|i| i.len()).unwrap_or(0);
        f.debug_struct("InMemoryStore")
            .field("items", &len)
            .field("eviction", &self.eviction)
            .finish_non_exhaustive()
    }
}

impl InMemoryStore {
    /// An empty store that never evicts.
    pub fn new() -> Self {
        Self::with_eviction(EvictionConfig::none())
    }

    /// An empty store applying `config` (a `check_interval` of 0 counts as 1),
    /// with the default [`ContextField`].
    pub fn with_eviction(config: EvictionConfig) -> Self {
        let index = Index::new(
            segments::DEFAULT_SEGMENT_DOCS,
            Some(ContextField::default()),
        );
        Self {
            inner: RwLock::new(index),
            eviction: config,
            bm25: Bm25::default(),
        }
    }

    /// Indexes items of a sequence with `context` as their context field
    /// (`None`: no context field, plain BM25 for every item); items already
    /// held are indexed again.
    pub fn with_context_field(self, context: Option<ContextField>) -> Self {
        if let Ok(mut inner) = self.inner.write() {
            let mut items = Vec::with_capacity(inner.len());
            inner.scan(&MemoryFilter::default(), |item| {
                items.push(item.clone());
                true
            });
            let mut fresh = Index::new(inner.segments.segment_docs(), context);
            for item in items {
                fresh.insert(doc::Analyzed::new(item));
            }
            *inner = fresh;
        }
        self
    }

    /// Uses `bm25` (its k1 and b) for [`MemoryStore::search`].
    pub fn with_bm25(mut self, bm25: Bm25) -> Self {
        self.bm25 = bm25;
        self
    }

    /// Seals new items into an id-ordered segment every `docs` items
    /// (default 4,096; at least 1); sealed segments merge in tiers of 8.
    ///
    /// Inside a segment, item order is id order, which lets a search whose
    /// k-th result is tied by many items skip the rest of each segment
    /// (results break score ties by id). Smaller segments order new items
    /// sooner and rewrite each item more often on insert; the default suits
    /// stores from thousands to millions of items.
    pub fn with_segment_size(self, docs: usize) -> Self {
        if let Ok(mut inner) = self.inner.write() {
            inner.segments.set_segment_docs(docs);
        }
        self
    }

    /// The eviction configuration.
    pub fn eviction(&self) -> &EvictionConfig {
        &self.eviction
    }

    /// Applies the eviction policy now, whatever the write count; returns how
    /// many items were dropped.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the lock is poisoned.
    pub fn evict_now(&self) -> Result<usize, MemoryError> {
        let mut inner = self.write()?;
        Ok(self.evict(&mut inner))
    }

    fn read(&self) -> Result<RwLockReadGuard<'_, Index>, MemoryError> {
        self.inner
            .read()
            .map_err(|_| MemoryError::Storage("in-memory store lock poisoned".into()))
    }

    fn write(&self) -> Result<RwLockWriteGuard<'_, Index>, MemoryError> {
        self.inner
            .write()
            .map_err(|_| MemoryError::Storage("in-memory store lock poisoned".into()))
    }
}

/// Content size above which tokenising moves to the blocking thread pool.
const BLOCKING_ANALYSIS_BYTES: usize = 256 * 1024;

/// Tokenises items for the index; large batches run on tokio's blocking pool
/// (when a tokio runtime is present) so the async workers stay free.
async fn analyze(items: Vec<MemoryItem>) -> Result<Vec<Analyzed>, MemoryError> {
    let bytes: usize = items.iter().map(|i| i.content.len()).sum();
    let work = move || items.into_iter().map(Analyzed::new).collect::<Vec<_>>();
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if bytes > BLOCKING_ANALYSIS_BYTES => handle
            .spawn_blocking(work)
            .await
            .map_err(|e| MemoryError::Storage(format!("indexing task failed: {e}"))),
        _ => Ok(work()),
    }
}

#[async_trait]
impl MemoryStore for InMemoryStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        let analyzed = analyze(vec![item]).await?;
        let mut inner = self.write()?;
        for a in analyzed {
            inner.insert(a);
        }
        self.after_writes(&mut inner, 1);
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        validate_id(id)?;
        Ok(self.read()?.get(id).cloned())
    }

    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            validate_id(id)?;
        }
        let inner = self.read()?;
        Ok(ids.iter().map(|id| inner.get(id).cloned()).collect())
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        validate_id(id)?;
        self.write()?.remove(id);
        Ok(())
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        filter.validate()?;
        let limit = filter.limit.unwrap_or(usize::MAX);
        let mut out = Vec::new();
        self.read()?.scan(filter, |item| {
            out.push(item.clone());
            out.len() < limit
        });
        Ok(out)
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        let analyzed = analyze(items).await?;
        let writes = analyzed.len();
        let mut inner = self.write()?;
        for a in analyzed {
            inner.insert(a);
        }
        self.after_writes(&mut inner, writes);
        Ok(())
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        let mut filter = filter.clone();
        filter.limit = None;
        filter.validate()?;
        let filter = &filter;
        let inner = self.read()?;
        let unfiltered = filter.prefix.is_none()
            && filter.since.is_none()
            && filter.until.is_none()
            && filter.metadata.is_empty();
        if unfiltered {
            return Ok(inner.len());
        }
        let mut n = 0;
        inner.scan(filter, |_| {
            n += 1;
            true
        });
        Ok(n)
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        validate_search_options(options)?;
        let terms = unique_index_terms(query);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let hits = self.read()?.search(&self.bm25, &terms, options);
        tracing::trace!(
            store = "in_memory",
            terms = terms.len(),
            hits = hits.len(),
            "search"
        );
        Ok(hits)
    }
}
