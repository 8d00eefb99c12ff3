//! [`RedisVectors`]: the [`VectorStore`](agcore_memory::vector::VectorStore)
//! of a Redis store's prefix.
//!
//! Vectors live in two hashes under the store's prefix (`P:vectors`, the
//! components as little-endian `f32`; `P:vector_hashes`, the content
//! hashes) with the embedding space in `P:vectors_meta` (see `schema.rs`);
//! searches run in process on an
//! [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors) loaded when
//! the store is opened and updated after each committed write
//! ([`CachedVectors`]), so no Redis module is needed. Open them with
//! [`VectorTables::vectors`] on a [`RedisStore`].

mod rows;
mod schema;

use agcore_memory::MemoryError;
use agcore_memory::vector::{CachedVectors, EmbeddingSpace, VectorRecord, VectorTables};
use async_trait::async_trait;

use crate::error::RedisStoreError;
use crate::store::RedisStore;
pub use rows::RedisRows;

/// The vector store under one [`RedisStore`] prefix, bound to one
/// [`EmbeddingSpace`]. Writes go to the server first (one `MULTI`
/// transaction per call), then to the in-memory index. `Send + Sync`.
pub type RedisVectors = CachedVectors<RedisRows>;

/// A reset deletes the prefix's vectors and records the new space in one
/// atomic script.
#[async_trait]
impl VectorTables for RedisStore {
    type Rows = RedisRows;

    async fn open_rows(
        &self,
        space: &EmbeddingSpace,
        reset: bool,
    ) -> Result<(RedisRows, Vec<VectorRecord>), MemoryError> {
        let mut conn = self.conn.clone();
        let [_, vectors, hashes] = schema::keys(&self.prefix);
        let stored = async {
            schema::setup(&mut conn, &self.prefix, space, reset).await?;
            rows::load_all(&mut conn, &vectors, &hashes).await
        }
        .await
        .map_err(|e: RedisStoreError| MemoryError::from(e))?;
        let rows = RedisRows {
            conn,
            vectors,
            hashes,
        };
        Ok((rows, stored))
    }
}
