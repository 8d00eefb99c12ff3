//! [`VectorTables`]: the one method a database without vector search
//! implements to store vectors; opening, resetting and searching them
//! ([`CachedVectors`]) and the [`VectorBackend`] of [`Storage`](crate::storage::Storage)
//! are provided on top of it.
//!
//! Also the byte layout those databases share for a vector: its components
//! as little-endian `f32` ([`vector_to_bytes`], [`vector_from_bytes`]).

use std::sync::Arc;

use agcore_llm::embedding::EmbeddingSpace;
use async_trait::async_trait;

use super::{CachedVectors, InMemoryVectorsConfig, VectorRecord, VectorRows, VectorStore};
use crate::MemoryError;
use crate::storage::VectorBackend;

/// A database that keeps vector records as rows (a table, a hash, a file)
/// and leaves searching to an in-process index.
///
/// Implement [`open_rows`](Self::open_rows); [`vectors`](Self::vectors),
/// [`vectors_with`](Self::vectors_with), [`reset_vectors`](Self::reset_vectors)
/// and [`VectorBackend`] come with it. The SQLite, MySQL / MariaDB and Redis
/// drivers implement it; PostgreSQL, which searches in the database
/// (pgvector), implements [`VectorBackend`] itself.
#[async_trait]
pub trait VectorTables: Send + Sync {
    /// What writes this database's rows.
    type Rows: VectorRows + 'static;

    /// Creates the vector storage when absent, binds it to `space` (or
    /// checks the space it holds) and returns the writer with every stored
    /// record. With `reset`, every stored vector and the recorded space are
    /// deleted first, atomically with binding the new space.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the database holds vectors of
    /// another space (and `reset` is false); [`MemoryError::Storage`] for a
    /// corrupt record; the database's errors.
    async fn open_rows(
        &self,
        space: &EmbeddingSpace,
        reset: bool,
    ) -> Result<(Self::Rows, Vec<VectorRecord>), MemoryError>;

    /// The vector store of this database in `space`, with default index
    /// settings. The first call creates its storage and records `space`;
    /// every call loads the stored vectors into memory, so open a space
    /// once and share the store. Writes go to the database first, then to
    /// the index; vectors written by another process appear when the store
    /// is opened again.
    ///
    /// # Errors
    /// As [`open_rows`](Self::open_rows).
    async fn vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<CachedVectors<Self::Rows>, MemoryError> {
        self.vectors_with(space, InMemoryVectorsConfig::default())
            .await
    }

    /// [`vectors`](Self::vectors) with explicit in-memory index settings.
    ///
    /// # Errors
    /// As [`open_rows`](Self::open_rows).
    async fn vectors_with(
        &self,
        space: EmbeddingSpace,
        config: InMemoryVectorsConfig,
    ) -> Result<CachedVectors<Self::Rows>, MemoryError> {
        let (rows, stored) = self.open_rows(&space, false).await?;
        CachedVectors::load(rows, space, config, stored).await
    }

    /// Deletes every stored vector and the recorded embedding space, then
    /// opens the (empty) vector store in `space` with default index
    /// settings: how a database switches embedding model. Stores opened
    /// before keep serving their cached vectors; open them again.
    ///
    /// # Errors
    /// As [`open_rows`](Self::open_rows).
    async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<CachedVectors<Self::Rows>, MemoryError> {
        let (rows, stored) = self.open_rows(&space, true).await?;
        CachedVectors::load(rows, space, InMemoryVectorsConfig::default(), stored).await
    }
}

#[async_trait]
impl<T: VectorTables> VectorBackend for T {
    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        Ok(Arc::new(VectorTables::vectors(self, space).await?))
    }

    async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        Ok(Arc::new(VectorTables::reset_vectors(self, space).await?))
    }
}

/// A vector as bytes: its components as little-endian `f32` (4 bytes each).
pub fn vector_to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The components of bytes written by [`vector_to_bytes`]; `None` when
/// their length is not a multiple of 4 (a corrupt record).
pub fn vector_from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    let chunks = bytes.chunks_exact(4);
    if !chunks.remainder().is_empty() {
        return None;
    }
    chunks
        .map(|c| <[u8; 4]>::try_from(c).ok().map(f32::from_le_bytes))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_through_bytes() {
        let v = [0.5f32, -1.25, f32::MIN_POSITIVE, 3.0e7];
        let bytes = vector_to_bytes(&v);
        assert_eq!(bytes.len(), 16);
        assert_eq!(vector_from_bytes(&bytes).as_deref(), Some(&v[..]));
        assert_eq!(vector_from_bytes(&bytes[..15]), None);
        assert_eq!(vector_from_bytes(&[]), Some(Vec::new()));
    }
}
