//! [`MysqlVectors`]: the [`VectorStore`] of a MySQL or MariaDB database.
//!
//! Vectors are rows of `agcore_vectors` (namespace, id, little-endian `f32`
//! `LONGBLOB`, content hash) with the embedding space in
//! `agcore_vectors_meta` (see `schema.rs`); searches run in process on an
//! [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors) loaded when
//! the store is opened and updated after each committed write
//! ([`CachedVectors`]), as neither MariaDB 10.6 nor MySQL 8 searches
//! vectors.

mod backend;
mod rows;
mod schema;

use agcore_memory::MemoryError;
use agcore_memory::vector::{CachedVectors, EmbeddingSpace, InMemoryVectorsConfig};

use crate::MysqlDatabase;
use crate::error::MysqlError;
pub use rows::MysqlRows;

/// The vector store of one MySQL / MariaDB database, bound to one
/// [`EmbeddingSpace`]. Open it with [`MysqlDatabase::vectors`].
///
/// Writes go to the server first (one transaction per call), then to the
/// in-memory index; reads are served from the index. Vectors written by
/// another process appear when the store is opened again. `Send + Sync`.
pub type MysqlVectors = CachedVectors<MysqlRows>;

impl MysqlDatabase {
    /// The vector store of this database in `space`, with default index
    /// settings. The first call creates its tables and records `space`;
    /// every call loads the stored vectors into memory.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the database holds vectors of
    /// another space; [`MemoryError::Unavailable`] / [`MemoryError::Storage`]
    /// from the server.
    pub async fn vectors(&self, space: EmbeddingSpace) -> Result<MysqlVectors, MemoryError> {
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
    ) -> Result<MysqlVectors, MemoryError> {
        self.open_vectors(space, config, false).await
    }

    /// Deletes every stored vector and the recorded embedding space, then
    /// opens the (empty) vector store in `space`, with default index
    /// settings: how a database switches embedding model. Runs under the
    /// setup lock. Stores opened before keep serving their cached vectors;
    /// open them again.
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] / [`MemoryError::Storage`] from the
    /// server.
    pub async fn reset_vectors(&self, space: EmbeddingSpace) -> Result<MysqlVectors, MemoryError> {
        self.open_vectors(space, InMemoryVectorsConfig::default(), true)
            .await
    }

    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
        config: InMemoryVectorsConfig,
        reset: bool,
    ) -> Result<MysqlVectors, MemoryError> {
        let conns = self.connections().clone();
        let stored = async {
            let mut conn = conns.get().await?;
            schema::setup(&mut conn, &space, reset).await
        }
        .await
        .map_err(|e: MysqlError| MemoryError::from(e))?;
        let inner = CachedVectors::load(MysqlRows { conns }, space, config, stored).await?;
        Ok(inner)
    }
}
