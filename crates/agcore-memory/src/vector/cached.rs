//! [`CachedVectors`]: vector rows in a database without vector search,
//! searched through an [`InMemoryVectors`] kept in sync with them.

use agcore_llm::embedding::EmbeddingSpace;
use async_trait::async_trait;
use tokio::sync::Mutex;

use super::in_memory::InMemoryVectors;
use super::prepare::{prepare_query, prepare_records, validate_namespace};
use super::{InMemoryVectorsConfig, VectorFilter, VectorHit, VectorRecord, VectorStore};
use crate::MemoryError;

/// Where a [`CachedVectors`] persists its records: a backend's table,
/// hash or file. Implementations only write; reads come from the cache.
#[async_trait]
pub trait VectorRows: Send + Sync {
    /// Inserts or replaces `records` (already validated and normalised,
    /// one per `(namespace, id)`), atomically.
    ///
    /// # Errors
    /// Backend errors ([`MemoryError::Storage`] / [`MemoryError::Unavailable`]).
    async fn upsert_rows(&self, records: &[VectorRecord]) -> Result<(), MemoryError>;

    /// Deletes the rows of `ids` in `namespace`; returns how many existed.
    ///
    /// # Errors
    /// Backend errors.
    async fn delete_rows(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError>;
}

/// A [`VectorStore`] whose records live in `R` and whose searches, counts
/// and content hashes are served by an [`InMemoryVectors`] loaded from the
/// rows on open and updated after each committed write (write-through).
///
/// Writes are serialised (one at a time, backend first, then the cache),
/// so the cache always equals the rows this process wrote. Rows written
/// by another process are not seen until the store is opened again.
pub struct CachedVectors<R> {
    rows: R,
    index: InMemoryVectors,
    writes: Mutex<()>,
}

impl<R: VectorRows> CachedVectors<R> {
    /// A store over `rows` in `space`, caching `stored` (every record the
    /// backend holds, read on open). Stored records are normalised again
    /// and deduplicated; invalid ones are an error.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when a stored record does not fit `space`
    /// (a corrupt row); lock or task failures.
    pub async fn load(
        rows: R,
        space: EmbeddingSpace,
        config: InMemoryVectorsConfig,
        stored: Vec<VectorRecord>,
    ) -> Result<Self, MemoryError> {
        let stored = prepare_records(&space, stored)
            .map_err(|e| MemoryError::Storage(format!("a stored vector is invalid: {e}")))?;
        let index = InMemoryVectors::with_config(space, config);
        index.apply_prepared(stored).await?;
        Ok(Self {
            rows,
            index,
            writes: Mutex::new(()),
        })
    }

    /// The backend rows.
    pub fn rows(&self) -> &R {
        &self.rows
    }

    /// The in-memory index serving reads.
    pub fn index(&self) -> &InMemoryVectors {
        &self.index
    }
}

impl<R> std::fmt::Debug for CachedVectors<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedVectors")
            .field("space", self.index.space())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<R: VectorRows> VectorStore for CachedVectors<R> {
    fn space(&self) -> &EmbeddingSpace {
        self.index.space()
    }

    async fn upsert(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
        let records = prepare_records(self.index.space(), records)?;
        if records.is_empty() {
            return Ok(());
        }
        let _turn = self.writes.lock().await;
        self.rows.upsert_rows(&records).await?;
        self.index.apply_prepared(records).await
    }

    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        validate_namespace(namespace)?;
        if ids.is_empty() {
            return Ok(0);
        }
        let _turn = self.writes.lock().await;
        let removed = self.rows.delete_rows(namespace, ids).await?;
        self.index.delete(namespace, ids).await?;
        Ok(removed)
    }

    async fn content_hashes(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<String>>, MemoryError> {
        self.index.content_hashes(namespace, ids).await
    }

    async fn vectors(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<Vec<f32>>>, MemoryError> {
        self.index.vectors(namespace, ids).await
    }

    async fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
    ) -> Result<Vec<VectorHit>, MemoryError> {
        prepare_query(self.index.space(), query)?;
        self.index.search(query, k, filter).await
    }

    async fn count(&self, filter: &VectorFilter) -> Result<usize, MemoryError> {
        self.index.count(filter).await
    }
}
