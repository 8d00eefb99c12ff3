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
use agcore_memory::vector::{
    CachedVectors, EmbeddingSpace, InMemoryVectorsConfig, VectorFilter, VectorHit, VectorRecord,
    VectorStore,
};
use async_trait::async_trait;

use crate::SqliteDatabase;
use rows::SqliteRows;

/// The vector store of one SQLite database, bound to one
/// [`EmbeddingSpace`]. Open it with [`SqliteDatabase::vectors`].
///
/// Writes go to the database first (one transaction per call, on the
/// writer thread), then to the in-memory index; reads are served from the
/// index. Vectors written by another process appear when the store is
/// opened again. `Send + Sync`.
pub struct SqliteVectors {
    inner: CachedVectors<SqliteRows>,
}

impl std::fmt::Debug for SqliteVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteVectors")
            .field("space", self.inner.space())
            .finish()
    }
}

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
        Ok(SqliteVectors { inner })
    }
}

#[async_trait]
impl VectorStore for SqliteVectors {
    fn space(&self) -> &EmbeddingSpace {
        self.inner.space()
    }

    async fn upsert(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
        self.inner.upsert(records).await
    }

    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        self.inner.delete(namespace, ids).await
    }

    async fn content_hashes(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<String>>, MemoryError> {
        self.inner.content_hashes(namespace, ids).await
    }

    async fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
    ) -> Result<Vec<VectorHit>, MemoryError> {
        self.inner.search(query, k, filter).await
    }

    async fn count(&self, filter: &VectorFilter) -> Result<usize, MemoryError> {
        self.inner.count(filter).await
    }
}
