//! [`VectorBackend`] for [`RedisStore`]: how `Storage::vectors` reaches this
//! backend's vector tables.

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::storage::VectorBackend;
use agcore_memory::vector::{EmbeddingSpace, VectorStore};
use async_trait::async_trait;

use crate::RedisStore;

#[async_trait]
impl VectorBackend for RedisStore {
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
        Ok(Arc::new(RedisStore::reset_vectors(self, space).await?))
    }
}
