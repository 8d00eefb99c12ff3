//! [`DenseSide`]: an embedding model and its in-memory vectors, the dense
//! half of the `simple` and `file` stores. Vectors are persisted by the
//! stores themselves (with the item or in the index), so a restart never
//! re-embeds what did not change.

use std::sync::Arc;

use agcore_llm::embedding::{EmbeddingModel, InputKind, l2_normalize};
use agcore_memory::hybrid::content_hash;
use agcore_memory::vector::{
    InMemoryVectors, VectorFilter, VectorRecord, VectorStore, check_vector,
};

use super::chunking::{ChunkingConfig, chunk_file};
use super::embedding::EmbeddingParams;
use crate::AgentError;

/// Vector namespace of attached stores.
const NAMESPACE: &str = "attach";

/// An embedder with its vectors. `Send + Sync`.
pub struct DenseSide {
    store: String,
    embedder: Arc<dyn EmbeddingModel>,
    vectors: InMemoryVectors,
    params: EmbeddingParams,
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
    /// Empty vectors of `embedder`'s space for the store `store`; `params`
    /// say how long texts are embedded (`max_length`, `use_chunking`,
    /// `chunk_strategy`).
    pub fn new(store: &str, embedder: Arc<dyn EmbeddingModel>, params: EmbeddingParams) -> Self {
        let vectors = InMemoryVectors::new(embedder.space());
        Self {
            store: store.to_owned(),
            embedder,
            vectors,
            params,
        }
    }

    /// The pieces `text` is embedded as: itself; with `max_length`, its
    /// first `max_length` characters, or with `use_chunking` every window of
    /// `max_length` characters (overlap a tenth; Markdown sections first
    /// under `chunk_strategy: markdown`).
    fn pieces(&self, text: &str) -> Vec<String> {
        let Some(max) = self.params.max_length.filter(|m| *m > 0) else {
            return vec![text.to_owned()];
        };
        if self.params.use_chunking != Some(true) {
            return vec![super::similarity::truncate_chars(text, max).to_owned()];
        }
        let config = ChunkingConfig {
            size: max,
            overlap: max / 10,
            strategy: self.params.chunk_strategy.unwrap_or_default(),
        };
        let pieces: Vec<String> = chunk_file("text.md", text, &config)
            .into_iter()
            .map(|c| c.text)
            .collect();
        if pieces.is_empty() {
            vec![text.to_owned()]
        } else {
            pieces
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

    fn memory(&self, source: agcore_memory::MemoryError) -> AgentError {
        AgentError::Store {
            store: self.store.clone(),
            source,
        }
    }

    /// Embeds documents, in the model's batches; a document cut into
    /// several pieces gets the normalised mean of their vectors.
    ///
    /// # Errors
    /// [`AgentError::StoreEmbedding`].
    pub async fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, AgentError> {
        let mut owners = Vec::new();
        let mut pieces = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            for piece in self.pieces(text) {
                owners.push(i);
                pieces.push(piece);
            }
        }
        let mut vectors = Vec::with_capacity(pieces.len());
        for batch in pieces.chunks(self.embedder.max_batch().max(1)) {
            let embedded = self
                .embedder
                .embed(batch, InputKind::Document)
                .await
                .map_err(|source| AgentError::StoreEmbedding {
                    store: self.store.clone(),
                    source,
                })?;
            vectors.extend(embedded.vectors);
        }
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut counts = vec![0usize; texts.len()];
        for (owner, vector) in owners.into_iter().zip(vectors) {
            let (Some(sum), Some(count)) = (out.get_mut(owner), counts.get_mut(owner)) else {
                continue;
            };
            if sum.is_empty() {
                *sum = vector;
            } else {
                sum.iter_mut().zip(&vector).for_each(|(a, b)| *a += b);
            }
            *count += 1;
        }
        for (vector, count) in out.iter_mut().zip(counts) {
            if count > 1 {
                l2_normalize(vector);
            }
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
    /// [`AgentError::Store`] for a vector of the wrong length.
    pub async fn insert(&self, rows: Vec<(String, Vec<f32>, String)>) -> Result<(), AgentError> {
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
    /// [`AgentError::Store`].
    pub async fn remove(&self, ids: &[String]) -> Result<(), AgentError> {
        self.vectors
            .delete(NAMESPACE, ids)
            .await
            .map(|_| ())
            .map_err(|e| self.memory(e))
    }

    /// The `k` nearest ids to `query` with their cosine similarity.
    ///
    /// # Errors
    /// [`AgentError::StoreEmbedding`] when the query cannot be embedded.
    pub async fn nearest(&self, query: &str, k: usize) -> Result<Vec<(String, f64)>, AgentError> {
        let vector = self.embedder.embed_query(query).await.map_err(|source| {
            AgentError::StoreEmbedding {
                store: self.store.clone(),
                source,
            }
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

#[cfg(test)]
mod tests {
    use agcore_llm::embedding::HashingEmbedder;

    use super::*;

    #[tokio::test]
    async fn long_texts_are_cut_or_averaged_by_the_params() {
        let model: Arc<dyn EmbeddingModel> = Arc::new(HashingEmbedder::new(64));
        let text = "alpha beta gamma ".repeat(20);
        let plain = DenseSide::new("s", Arc::clone(&model), EmbeddingParams::default());
        assert_eq!(plain.pieces(&text).len(), 1);
        let cut = EmbeddingParams {
            max_length: Some(40),
            ..EmbeddingParams::default()
        };
        let cut = DenseSide::new("s", Arc::clone(&model), cut);
        assert_eq!(
            cut.pieces(&text),
            vec![text.chars().take(40).collect::<String>()]
        );
        let chunked = EmbeddingParams {
            max_length: Some(40),
            use_chunking: Some(true),
            ..EmbeddingParams::default()
        };
        let chunked = DenseSide::new("s", model, chunked);
        assert!(chunked.pieces(&text).len() > 5);
        let vectors = chunked
            .embed_documents(&[text.clone(), "short".into()])
            .await
            .unwrap();
        let norm: f32 = vectors[0].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        assert_eq!(vectors[1].len(), 64);
    }
}
