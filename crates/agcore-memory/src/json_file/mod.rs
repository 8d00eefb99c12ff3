//! [`JsonFileStore`]: a [`MemoryStore`] kept in one human-readable JSON file
//! for small stores, fixtures and hand-edited memory.
//!
//! The items live in an [`InMemoryStore`] (its BM25 index, filters and
//! eviction); every write then replaces the file atomically (temporary file,
//! sync, rename — see `file.rs`), so the file always holds either the state
//! before a write or the state after it. A write rewrites the whole file, so
//! cost grows with the store: fine for thousands of items, not for millions
//! (use SQLite there). One process owns a file at a time; several processes
//! writing one file lose each other's writes (use SQLite or a server backend).

mod file;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use tokio::sync::Mutex;

use crate::{
    EvictionConfig, InMemoryStore, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem,
    SearchOptions,
};

/// A memory store persisted to one JSON file,
/// `{"format": "agcore-memory", "version": 1, "items": [MemoryItem…]}`.
///
/// Reads are served from memory; each write (`save`, `save_many`, `delete`)
/// is applied, then the whole file is replaced atomically before the call
/// returns. When the file cannot be written, the call fails with
/// [`MemoryError::Storage`] and the store reloads the (intact) file, so memory
/// and disk never disagree. Evictions (TTL, capacity) reach the file with the
/// write that triggers them. `Send + Sync`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_memory::MemoryError> {
/// use agcore_memory::{JsonFileStore, MemoryItem, MemoryStore, SearchOptions};
///
/// let dir = tempfile::tempdir().map_err(|e| agcore_memory::MemoryError::Storage(e.to_string()))?;
/// let path = dir.path().join("memory.json");
/// let store = JsonFileStore::open(&path).await?;
/// store.save(MemoryItem::new("pref:tea", "The user drinks green tea")).await?;
/// drop(store);
/// let reopened = JsonFileStore::open(&path).await?;
/// assert_eq!(reopened.search("green tea", &SearchOptions::top_k(1)).await?.len(), 1);
/// # Ok(()) }
/// ```
pub struct JsonFileStore {
    path: PathBuf,
    eviction: EvictionConfig,
    items: RwLock<Arc<InMemoryStore>>,
    /// Serialises writes so each file replacement holds every earlier write.
    writer: Mutex<()>,
}

impl std::fmt::Debug for JsonFileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonFileStore")
            .field("path", &self.path)
            .field("eviction", &self.eviction)
            .finish_non_exhaustive()
    }
}

async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, MemoryError> + Send + 'static,
) -> Result<T, MemoryError> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|err| MemoryError::Storage(format!("JSON file task failed: {err}")))?
}

async fn index(
    items: Vec<MemoryItem>,
    eviction: EvictionConfig,
) -> Result<InMemoryStore, MemoryError> {
    let store = InMemoryStore::with_eviction(eviction);
    store.save_many(items).await?;
    Ok(store)
}

impl JsonFileStore {
    /// Opens the store in the file at `path`, creating its folder now and the
    /// file on the first write when missing. Never evicts.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the folder cannot be created or the file
    /// cannot be read, is not an agcore
    /// memory file, is of a newer format version, or holds an invalid item
    /// (the file is left untouched).
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Self::open_with_eviction(path, EvictionConfig::none()).await
    }

    /// As [`JsonFileStore::open`], applying `eviction` (TTL, capacity).
    ///
    /// # Errors
    /// As [`JsonFileStore::open`].
    pub async fn open_with_eviction(
        path: impl AsRef<Path>,
        eviction: EvictionConfig,
    ) -> Result<Self, MemoryError> {
        let path = path.as_ref().to_path_buf();
        let read = path.clone();
        let items = blocking(move || {
            file::create_folder(&read)?;
            file::load(&read)
        })
        .await?;
        let store = index(items, eviction.clone()).await?;
        Ok(Self {
            path,
            eviction,
            items: RwLock::new(Arc::new(store)),
            writer: Mutex::new(()),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn current(&self) -> Result<Arc<InMemoryStore>, MemoryError> {
        self.items
            .read()
            .map(|items| Arc::clone(&items))
            .map_err(|_| MemoryError::Storage("JSON file store lock poisoned".to_owned()))
    }

    /// Applies `change` to the items and writes the file; on a failed write,
    /// reloads the file so memory matches disk again.
    async fn write<F, Fut>(&self, change: F) -> Result<(), MemoryError>
    where
        F: FnOnce(Arc<InMemoryStore>) -> Fut + Send,
        Fut: std::future::Future<Output = Result<(), MemoryError>> + Send,
    {
        let _writing = self.writer.lock().await;
        let items = self.current()?;
        let applied = change(Arc::clone(&items)).await;
        let snapshot = items.list(&MemoryFilter::default()).await?;
        let path = self.path.clone();
        let written = match applied {
            Ok(()) => blocking(move || file::replace(&path, snapshot)).await,
            Err(err) => Err(err),
        };
        if written.is_err() {
            let read = self.path.clone();
            let fresh = index(
                blocking(move || file::load(&read)).await?,
                self.eviction.clone(),
            )
            .await?;
            let mut slot = self
                .items
                .write()
                .map_err(|_| MemoryError::Storage("JSON file store lock poisoned".to_owned()))?;
            *slot = Arc::new(fresh);
        }
        written
    }
}

#[async_trait]
impl MemoryStore for JsonFileStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        self.write(|items| async move { items.save(item).await })
            .await
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        self.current()?.get(id).await
    }

    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        self.current()?.get_many(ids).await
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        crate::types::validate_id(id)?;
        let id = id.to_owned();
        self.write(|items| async move { items.delete(&id).await })
            .await
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        self.current()?.list(filter).await
    }

    async fn save_many(&self, batch: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &batch {
            item.validate()?;
        }
        self.write(|items| async move { items.save_many(batch).await })
            .await
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        self.current()?.count(filter).await
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        self.current()?.search(query, options).await
    }
}

#[cfg(test)]
mod tests;
