//! One [`Storage`] over a [`KvBackend`]: the store, long-term memory and
//! vectors, as the driver crates hand them to `agcore`.

use std::sync::Arc;

use agcore_memory::storage::VectorBackend;
use agcore_memory::vector::{EmbeddingSpace, VectorStore};
use agcore_memory::{BackendInfo, EvictionConfig, MemoryError, Storage};
use async_trait::async_trait;

use crate::backend::KvBackend;
use crate::long_term::KvLongTerm;
use crate::store::KvStore;
use crate::vectors::{open_vectors, reset_vectors};

/// The [`VectorBackend`] of a [`KvBackend`]: [`Storage::vectors`] opens
/// [`KvVectors`](crate::KvVectors) through it. Each call loads its own
/// in-memory index, so open the vectors of a space once and share them.
#[derive(Debug)]
pub struct KvVectorBackend<B> {
    backend: Arc<B>,
}

impl<B> KvVectorBackend<B> {
    /// The vector storage of `backend`.
    pub fn new(backend: Arc<B>) -> Self {
        Self { backend }
    }
}

#[async_trait]
impl<B: KvBackend> VectorBackend for KvVectorBackend<B> {
    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        Ok(Arc::new(
            open_vectors(Arc::clone(&self.backend), space).await?,
        ))
    }

    async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        Ok(Arc::new(
            reset_vectors(Arc::clone(&self.backend), space).await?,
        ))
    }
}

/// Opens everything `backend` stores as one [`Storage`] described by
/// `info`: a [`KvStore`] applying `eviction`, a [`KvLongTerm`] and the
/// vectors ([`KvVectorBackend`]). Closing the long-term memory closes the
/// backend, as with the SQL drivers.
///
/// # Errors
/// [`MemoryError::Storage`] when the backend fails or holds a corrupt record.
pub async fn storage<B: KvBackend>(
    backend: Arc<B>,
    info: BackendInfo,
    eviction: EvictionConfig,
) -> Result<Storage, MemoryError> {
    let store = KvStore::open(Arc::clone(&backend), eviction).await?;
    let long_term = KvLongTerm::open(Arc::clone(&backend)).await?;
    Ok(Storage::new(info, Arc::new(store))
        .with_long_term(Arc::new(long_term))
        .with_vectors(Arc::new(KvVectorBackend::new(backend))))
}
