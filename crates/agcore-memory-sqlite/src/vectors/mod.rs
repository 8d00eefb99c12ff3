//! [`SqliteVectors`]: the [`VectorStore`] of a SQLite database.
//!
//! Vectors are rows of `agcore_vectors` (namespace, id, little-endian
//! `f32` BLOB, content hash) with the embedding space in
//! `agcore_vectors_meta`; searches run in process on an
//! [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors) loaded when
//! the store is opened and updated after each committed write
//! ([`CachedVectors`]). The README records why this beat `sqlite-vec`.

mod backend;
mod rows;
mod schema;

use agcore_memory::MemoryError;
use agcore_memory::vector::{CachedVectors, EmbeddingSpace, InMemoryVectorsConfig};

use crate::SqliteDatabase;
pub use rows::SqliteRows;

/// The vector store of one SQLite database, bound to one
/// [`EmbeddingSpace`]. Open it with [`SqliteDatabase::vectors`].
///
/// Writes go to the database first (one transaction per call, on the
/// writer thread), then to the in-memory index; reads are served from the
/// index. Vectors written by another process appear when the store is
/// opened again. `Send + Sync`.
pub type SqliteVectors = CachedVectors<SqliteRows>;

impl SqliteDatabase {
    /// The vector store of this database in `space`, with default index
    /// settings. The first call creates its tables and records `space`.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the database holds vectors of
    /// another space; SQLite errors.
    pub async fn vectors(&self, space: EmbeddingSpace) -> Result<SqliteVectors, MemoryError> {
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
    ) -> Result<SqliteVectors, MemoryError> {
        self.open_vectors(space, config, false).await
    }

    /// Deletes every stored vector and the recorded embedding space, then
    /// opens the (empty) vector store in `space`, with default index
    /// settings: how a database switches embedding model. Both happen in
    /// one transaction. Stores opened before keep serving their cached
    /// vectors; open them again.
    ///
    /// # Errors
    /// SQLite errors.
    pub async fn reset_vectors(&self, space: EmbeddingSpace) -> Result<SqliteVectors, MemoryError> {
        self.open_vectors(space, InMemoryVectorsConfig::default(), true)
            .await
    }

    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
        config: InMemoryVectorsConfig,
        reset: bool,
    ) -> Result<SqliteVectors, MemoryError> {
        let db = self.connection();
        let checked = space.clone();
        let stored = db
            .exec(move |conn| {
                schema::setup(conn, &checked, reset)?;
                rows::load_all(conn)
            })
            .await?;
        let inner = CachedVectors::load(SqliteRows { db }, space, config, stored).await?;
        Ok(inner)
    }
}
