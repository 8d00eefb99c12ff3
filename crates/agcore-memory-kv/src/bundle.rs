//! One [`Storage`] over a [`KvBackend`]: the store, long-term memory and
//! vectors, as the driver crates hand them to `agcore`.

use std::sync::Arc;

use agcore_memory::{BackendInfo, EvictionConfig, MemoryError, Storage};

use crate::backend::KvBackend;
use crate::long_term::KvLongTerm;
use crate::store::KvStore;
use crate::vectors::KvVectorBackend;

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
