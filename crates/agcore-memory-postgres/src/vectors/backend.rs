//! [`VectorBackend`] for [`PostgresDatabase`]: how `Storage::vectors` reaches this
//! backend's vector tables.

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::storage::VectorBackend;
use agcore_memory::vector::{EmbeddingSpace, VectorStore};
use async_trait::async_trait;

use crate::PostgresDatabase;

#[async_trait]
impl VectorBackend for PostgresDatabase {
    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        Ok(Arc::new(self.vectors(space).await?))
    }

    async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        Ok(Arc::new(
            PostgresDatabase::reset_vectors(self, space).await?,
        ))
    }
}
