//! [`RedisVectors`]: the [`VectorStore`] of a Redis store's prefix.
//!
//! Vectors live in two hashes under the store's prefix (`P:vectors`, the
//! components as little-endian `f32`; `P:vector_hashes`, the content
//! hashes) with the embedding space in `P:vectors_meta` (see `schema.rs`);
//! searches run in process on an
//! [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors) loaded when
//! the store is opened and updated after each committed write
//! ([`CachedVectors`]), so no Redis module is needed.

mod backend;
mod rows;
mod schema;

use agcore_memory::MemoryError;
use agcore_memory::vector::{CachedVectors, EmbeddingSpace, InMemoryVectorsConfig};

use crate::error::RedisStoreError;
use crate::store::RedisStore;
pub use rows::RedisRows;

/// The vector store under one [`RedisStore`] prefix, bound to one
/// [`EmbeddingSpace`]. Open it with [`RedisStore::vectors`].
///
/// Writes go to the server first (one `MULTI` transaction per call), then
/// to the in-memory index; reads are served from the index. Vectors written
/// by another process appear when the store is opened again. `Send + Sync`.
pub type RedisVectors = CachedVectors<RedisRows>;

impl RedisStore {
    /// The vector store under this store's prefix in `space`, with default
    /// index settings. The first call records `space`; every call loads the
    /// stored vectors into memory.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the prefix holds vectors of
    /// another space; [`MemoryError::Unavailable`] / [`MemoryError::Storage`]
    /// from the server.
    pub async fn vectors(&self, space: EmbeddingSpace) -> Result<RedisVectors, MemoryError> {
        self.vectors_with(space, InMemoryVectorsConfig::default())
            .await
    }

    /// [`vectors`](Self::vectors) with explicit in-memory index settings.
    ///
    /// # Errors
    /// As [`vectors`](Self::vectors).
    pub async fn vectors_with(
        &self,
        space: EmbeddingSpace,
        config: InMemoryVectorsConfig,
    ) -> Result<RedisVectors, MemoryError> {
        self.open_vectors(space, config, false).await
    }

    /// Deletes every stored vector and the recorded embedding space under
    /// this prefix, then opens the (empty) vector store in `space`, with
    /// default index settings: how a store switches embedding model. The
    /// deletion and the new space are one atomic script. Stores opened
    /// before keep serving their cached vectors; open them again.
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] / [`MemoryError::Storage`] from the
    /// server.
    pub async fn reset_vectors(&self, space: EmbeddingSpace) -> Result<RedisVectors, MemoryError> {
        self.open_vectors(space, InMemoryVectorsConfig::default(), true)
            .await
    }

    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
        config: InMemoryVectorsConfig,
        reset: bool,
    ) -> Result<RedisVectors, MemoryError> {
        let mut conn = self.conn.clone();
        let [_, vectors, hashes] = schema::keys(&self.prefix);
        let stored = async {
            schema::setup(&mut conn, &self.prefix, &space, reset).await?;
            rows::load_all(&mut conn, &vectors, &hashes).await
        }
        .await
        .map_err(|e: RedisStoreError| MemoryError::from(e))?;
        let rows = RedisRows {
            conn,
            vectors,
            hashes,
        };
        let inner = CachedVectors::load(rows, space, config, stored).await?;
        Ok(inner)
    }
}
