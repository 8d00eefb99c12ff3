//! [`SqliteVectors`]: the [`VectorStore`](agcore_memory::vector::VectorStore)
//! of a SQLite database.
//!
//! Vectors are rows of `agcore_vectors` (namespace, id, little-endian
//! `f32` BLOB, content hash) with the embedding space in
//! `agcore_vectors_meta`; searches run in process on an
//! [`InMemoryVectors`](agcore_memory::vector::InMemoryVectors) loaded when
//! the store is opened and updated after each committed write
//! ([`CachedVectors`]). The README records why this beat `sqlite-vec`.
//! Open them with [`VectorTables::vectors`] on a [`SqliteDatabase`].

mod rows;
mod schema;

use agcore_memory::MemoryError;
use agcore_memory::vector::{CachedVectors, EmbeddingSpace, VectorRecord, VectorTables};
use async_trait::async_trait;

use crate::SqliteDatabase;
pub use rows::SqliteRows;

/// The vector store of one SQLite database, bound to one
/// [`EmbeddingSpace`]. Writes go to the database first (one transaction
/// per call, on the writer thread), then to the in-memory index. `Send + Sync`.
pub type SqliteVectors = CachedVectors<SqliteRows>;

/// Setting up the space (or resetting it) and reading the stored rows are
/// one transaction on the writer thread.
#[async_trait]
impl VectorTables for SqliteDatabase {
    type Rows = SqliteRows;

    async fn open_rows(
        &self,
        space: &EmbeddingSpace,
        reset: bool,
    ) -> Result<(SqliteRows, Vec<VectorRecord>), MemoryError> {
        let db = self.connection();
        let checked = space.clone();
        let stored = db
            .exec(move |conn| {
                schema::setup(conn, &checked, reset)?;
                rows::load_all(conn)
            })
            .await?;
        Ok((SqliteRows { db }, stored))
    }
}
