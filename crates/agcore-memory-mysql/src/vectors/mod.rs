//! [`MysqlVectors`]: the [`VectorStore`](agcore_memory::vector::VectorStore)
//! of a MySQL or MariaDB database.
//!
//! Vectors are rows of `agcore_vectors` (namespace, id, little-endian `f32`
//! `LONGBLOB`, content hash) with the embedding space in
//! `agcore_vectors_meta` (see `schema.rs`); searches run in process on an
//! [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors) loaded when
//! the store is opened and updated after each committed write
//! ([`CachedVectors`]), as neither MariaDB 10.6 nor MySQL 8 searches
//! vectors. Open them with [`VectorTables::vectors`] on a [`MysqlDatabase`].

mod rows;
mod schema;

use agcore_memory::MemoryError;
use agcore_memory::vector::{CachedVectors, EmbeddingSpace, VectorRecord, VectorTables};
use async_trait::async_trait;

use crate::MysqlDatabase;
use crate::error::MysqlError;
pub use rows::MysqlRows;

/// The vector store of one MySQL / MariaDB database, bound to one
/// [`EmbeddingSpace`]. Writes go to the server first (one transaction per
/// call), then to the in-memory index. `Send + Sync`.
pub type MysqlVectors = CachedVectors<MysqlRows>;

/// Setting up the space (or resetting it) runs under the setup lock.
#[async_trait]
impl VectorTables for MysqlDatabase {
    type Rows = MysqlRows;

    async fn open_rows(
        &self,
        space: &EmbeddingSpace,
        reset: bool,
    ) -> Result<(MysqlRows, Vec<VectorRecord>), MemoryError> {
        let conns = self.connections().clone();
        let stored = async {
            let mut conn = conns.get().await?;
            schema::setup(&mut conn, space, reset).await
        }
        .await
        .map_err(|e: MysqlError| MemoryError::from(e))?;
        Ok((MysqlRows { conns }, stored))
    }
}
