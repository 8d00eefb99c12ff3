//! [`DenseSide`]: an embedding model and its in-memory vectors, the dense
//! half of the `simple` and `file` stores. Vectors are persisted by the
//! stores themselves (with the item or in the index), so a restart never
//! re-embeds what did not change.

use std::sync::Arc;

use agcore_llm::embedding::{EmbeddingModel, InputKind};
use agcore_memory::hybrid::content_hash;
use agcore_memory::vector::{
    InMemoryVectors, VectorFilter, VectorRecord, VectorStore, check_vector,
};

use super::error::AttachError;

/// Vector namespace of attached stores.
const NAMESPACE: &str = "attach";

/// An embedder with its vectors. `Send + Sync`.
pub struct DenseSide {
    store: String,
    embedder: Arc<dyn EmbeddingModel>,
    vectors: InMemoryVectors,
}

impl std::fmt::Debug for DenseSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseSide")
            .field("store", &self.store)
            .field("model", &self.embedder.model_id())
            .finish_non_exhaustive()
    }
}

impl DenseSide {
    /// Empty vectors of `embedder`'s space for the store `store`.
    pub fn new(store: &str, embedder: Arc<dyn EmbeddingModel>) -> Self {
        let vectors = InMemoryVectors::new(embedder.space());
        Self {
            store: store.to_owned(),
            embedder,
            vectors,
        }
    }

    /// The model id recorded with persisted vectors.
    pub fn model_id(&self) -> &str {
        self.embedder.model_id()
    }

    /// The hash a persisted vector of `text` carries.
    pub fn hash(&self, text: &str) -> String {
        content_hash(self.embedder.model_id(), text)
    }

    fn memory(&self, source: agcore_memory::MemoryError) -> AttachError {
        AttachError::Memory {
            store: self.store.clone(),
            source,
        }
    }

    /// Embeds documents, in the model's batches.
    ///
    /// # Errors
    /// [`AttachError::Embedding`].
    pub async fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, AttachError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.embedder.max_batch().max(1)) {
            let embedded = self
                .embedder
                .embed(batch, InputKind::Document)
                .await
                .map_err(|source| AttachError::Embedding {
                    store: self.store.clone(),
                    source,
                })?;
            out.extend(embedded.vectors);
        }
        Ok(out)
    }

    /// Whether `vector` fits this model's space (a persisted vector of
    /// another model does not).
    pub fn fits(&self, vector: &[f32]) -> bool {
        check_vector(self.vectors.space(), vector).is_ok()
    }

    /// Adds or replaces vectors `(id, vector, hash)`.
    ///
    /// # Errors
    /// [`AttachError::Memory`] for a vector of the wrong length.
    pub async fn insert(&self, rows: Vec<(String, Vec<f32>, String)>) -> Result<(), AttachError> {
        let records = rows
            .into_iter()
            .map(|(id, vector, hash)| VectorRecord::new(NAMESPACE, id, vector, hash))
            .collect();
        self.vectors
            .upsert(records)
            .await
            .map_err(|e| self.memory(e))
    }

    /// Removes vectors.
    ///
    /// # Errors
    /// [`AttachError::Memory`].
    pub async fn remove(&self, ids: &[String]) -> Result<(), AttachError> {
        self.vectors
            .delete(NAMESPACE, ids)
            .await
            .map(|_| ())
            .map_err(|e| self.memory(e))
    }

    /// The `k` nearest ids to `query` with their cosine similarity.
    ///
    /// # Errors
    /// [`AttachError::Embedding`] when the query cannot be embedded.
    pub async fn nearest(&self, query: &str, k: usize) -> Result<Vec<(String, f64)>, AttachError> {
        let vector =
            self.embedder
                .embed_query(query)
                .await
                .map_err(|source| AttachError::Embedding {
                    store: self.store.clone(),
                    source,
                })?;
        let hits = self
            .vectors
            .search(&vector, k.max(1), &VectorFilter::namespace(NAMESPACE))
            .await
            .map_err(|e| self.memory(e))?;
        Ok(hits
            .into_iter()
            .map(|h| (h.id, f64::from(h.score)))
            .collect())
    }
}
