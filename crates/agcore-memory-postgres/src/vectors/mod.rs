//! [`PostgresVectors`]: the [`VectorStore`] of a PostgreSQL database,
//! on pgvector.
//!
//! Vectors are `vector(n)` columns of `agcore_vectors` (namespace, id,
//! embedding, content hash) with an HNSW index (`vector_cosine_ops`); the
//! embedding space and a layout version live in `agcore_vectors_meta`.
//! Search rule: when at most [`PostgresVectors::EXACT_LIMIT`] rows pass
//! the filter, an exact ordered scan (ordering by the score, which the
//! index cannot serve); otherwise the HNSW index with pgvector's iterative
//! scan (`hnsw.iterative_scan = relaxed_order`, `hnsw.ef_search =
//! max(64, 2k)`), re-ranked exactly in process.

mod backend;
mod query;
mod schema;
mod text;

use agcore_memory::MemoryError;
use agcore_memory::vector::{
    EmbeddingSpace, VectorFilter, VectorHit, VectorRecord, VectorStore, prepare_query,
    prepare_records, validate_namespace,
};
use async_trait::async_trait;
use deadpool_postgres::Pool;

use crate::PostgresDatabase;
use crate::error::PostgresError;

/// The vector store of one PostgreSQL schema, bound to one
/// [`EmbeddingSpace`]. Open it with [`PostgresDatabase::vectors`].
/// `Send + Sync`; every call takes a pooled connection.
#[derive(Debug, Clone)]
pub struct PostgresVectors {
    pool: Pool,
    space: EmbeddingSpace,
    /// The quoted schema of pgvector's type and operators.
    ext: String,
}

impl PostgresDatabase {
    /// The vector store of this database in `space`. The first call
    /// installs pgvector (if missing, into `public`), creates its tables in
    /// the database's schema and records `space`.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the schema holds vectors of
    /// another space; server errors (pgvector missing on the server).
    pub async fn vectors(&self, space: EmbeddingSpace) -> Result<PostgresVectors, MemoryError> {
        self.open_vectors(space, false).await
    }

    /// Drops every stored vector and the recorded embedding space, then
    /// opens the (empty) vector store in `space`: how a schema switches
    /// embedding model (the `vector(n)` column and its HNSW index are
    /// created again for the new dimensions). Both happen in one
    /// transaction under the setup lock.
    ///
    /// # Errors
    /// Server errors (pgvector missing on the server among them).
    pub async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<PostgresVectors, MemoryError> {
        self.open_vectors(space, true).await
    }

    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
        reset: bool,
    ) -> Result<PostgresVectors, MemoryError> {
        let mut client = self.pool().get().await.map_err(PostgresError::from)?;
        let ext = schema::setup(&mut client, &space, reset).await?;
        Ok(PostgresVectors {
            pool: self.pool().clone(),
            space,
            ext,
        })
    }
}

impl PostgresVectors {
    /// Filtered sets up to this size are searched exactly (20,000).
    pub const EXACT_LIMIT: i64 = 20_000;
}

#[async_trait]
impl VectorStore for PostgresVectors {
    fn space(&self) -> &EmbeddingSpace {
        &self.space
    }

    async fn upsert(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
        let records = prepare_records(&self.space, records)?;
        if records.is_empty() {
            return Ok(());
        }
        Ok(query::upsert(&self.pool, &self.ext, &records).await?)
    }

    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        validate_namespace(namespace)?;
        if ids.is_empty() {
            return Ok(0);
        }
        Ok(query::delete(&self.pool, namespace, ids).await?)
    }

    async fn content_hashes(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<String>>, MemoryError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(query::content_hashes(&self.pool, namespace, ids).await?)
    }

    async fn vectors(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<Vec<f32>>>, MemoryError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(query::vectors(&self.pool, namespace, ids).await?)
    }

    async fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
    ) -> Result<Vec<VectorHit>, MemoryError> {
        let query = prepare_query(&self.space, query)?;
        if k == 0 {
            return Ok(Vec::new());
        }
        Ok(query::search(&self.pool, &self.ext, &query, k, filter).await?)
    }

    async fn count(&self, filter: &VectorFilter) -> Result<usize, MemoryError> {
        let client = self.pool.get().await.map_err(PostgresError::from)?;
        Ok(query::count(&client, filter).await?)
    }
}
