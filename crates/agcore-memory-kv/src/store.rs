//! [`KvStore`]: a [`MemoryStore`] whose items live in a [`KvBackend`] and
//! whose reads and searches are served by an [`InMemoryStore`].

use std::sync::Arc;

use agcore_memory::retriever::ContextField;
use agcore_memory::{
    EvictionConfig, EvictionPolicy, InMemoryStore, MemoryError, MemoryFilter, MemoryItem,
    MemoryStore, ScoredItem, SearchOptions, validate_id,
};
use async_trait::async_trait;
use chrono::Utc;
use tokio::sync::Mutex;

use crate::backend::{KvBackend, Table, WriteBatch};
use crate::codec::{decode, encode};

/// A [`MemoryStore`] over any [`KvBackend`].
///
/// Items are JSON values of [`Table::Items`] keyed by id. On open every item
/// is read into an [`InMemoryStore`], which answers `get`, `list`, `count`
/// and `search` — so results and BM25/BM25F scores are those of the
/// in-memory store, which ranks like SQLite. Writes are serialised: each
/// goes to the backend in one atomic batch first, then to the index, so a
/// failed write changes neither. Eviction ([`EvictionConfig`]) is applied
/// by this layer after every `check_interval` writes, deleting from both.
/// Memory use is O(items); items written by another process are seen on
/// the next open.
pub struct KvStore<B> {
    backend: Arc<B>,
    index: InMemoryStore,
    eviction: EvictionConfig,
    writes: Mutex<usize>,
}

impl<B> std::fmt::Debug for KvStore<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvStore")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl<B: KvBackend> KvStore<B> {
    /// Opens the store of `backend`, loading its items, with the default
    /// context field of [`InMemoryStore`].
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the backend fails or holds a corrupt item.
    pub async fn open(backend: Arc<B>, eviction: EvictionConfig) -> Result<Self, MemoryError> {
        Self::open_with(backend, eviction, Some(ContextField::default())).await
    }

    /// As [`open`](Self::open), indexing items of a sequence with `context`
    /// as their context field (`None`: plain BM25 for every item).
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub async fn open_with(
        backend: Arc<B>,
        eviction: EvictionConfig,
        context: Option<ContextField>,
    ) -> Result<Self, MemoryError> {
        let rows = backend.scan(Table::Items, b"").await?;
        let items = rows
            .iter()
            .map(|(_, value)| decode::<MemoryItem>(Table::Items, value))
            .collect::<Result<Vec<_>, _>>()?;
        let index = InMemoryStore::new().with_context_field(context);
        index.save_many(items).await?;
        Ok(Self {
            backend,
            index,
            eviction,
            writes: Mutex::new(0),
        })
    }

    /// The backend.
    pub fn backend(&self) -> &Arc<B> {
        &self.backend
    }

    /// Writes `items` to the backend, then to the index, then evicts when due.
    async fn put(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        let mut batch = WriteBatch::new();
        for item in &items {
            batch.put(
                Table::Items,
                item.id.clone().into_bytes(),
                encode(Table::Items, item)?,
            );
        }
        let count = items.len();
        let mut writes = self.writes.lock().await;
        self.backend.write(batch).await?;
        self.index.save_many(items).await?;
        *writes = writes.saturating_add(count);
        if *writes >= self.eviction.check_interval.max(1) {
            *writes = 0;
            self.evict().await?;
        }
        Ok(())
    }

    /// Deletes what the eviction policy selects now (the caller holds the
    /// write turn); returns how many items went.
    async fn evict(&self) -> Result<usize, MemoryError> {
        let all = self.index.list(&MemoryFilter::all()).await?;
        let victims: Vec<String> = match &self.eviction.policy {
            EvictionPolicy::Ttl { ttl_secs } => {
                let ttl = i64::try_from(*ttl_secs)
                    .ok()
                    .and_then(chrono::Duration::try_seconds);
                match ttl.and_then(|ttl| Utc::now().checked_sub_signed(ttl)) {
                    Some(cutoff) => all
                        .into_iter()
                        .filter(|i| i.created_at <= cutoff)
                        .map(|i| i.id)
                        .collect(),
                    None => Vec::new(),
                }
            }
            EvictionPolicy::Capacity { max_items } => {
                let excess = all.len().saturating_sub(*max_items);
                all.into_iter().take(excess).map(|i| i.id).collect()
            }
            _ => Vec::new(),
        };
        self.remove(&victims).await?;
        Ok(victims.len())
    }

    /// Deletes `ids` from the backend, then from the index.
    async fn remove(&self, ids: &[String]) -> Result<(), MemoryError> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut batch = WriteBatch::new();
        for id in ids {
            batch.delete(Table::Items, id.clone().into_bytes());
        }
        self.backend.write(batch).await?;
        for id in ids {
            self.index.delete(id).await?;
        }
        Ok(())
    }

    /// Applies the eviction policy now, whatever the write count; returns
    /// how many items were dropped.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the backend fails.
    pub async fn evict_now(&self) -> Result<usize, MemoryError> {
        let _turn = self.writes.lock().await;
        self.evict().await
    }
}

#[async_trait]
impl<B: KvBackend> MemoryStore for KvStore<B> {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        self.put(vec![item]).await
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        self.index.get(id).await
    }

    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        self.index.get_many(ids).await
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        validate_id(id)?;
        let _turn = self.writes.lock().await;
        self.remove(&[id.to_owned()]).await
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        self.index.list(filter).await
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        if items.is_empty() {
            return Ok(());
        }
        self.put(items).await
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        self.index.count(filter).await
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        self.index.search(query, options).await
    }
}
