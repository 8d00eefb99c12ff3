//! Query vectors shared by the retrievers of one `agcore eval` run: every
//! dense and hybrid row embeds the same questions with the same model, so
//! each question is embedded once and the later rows reuse its vector.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agcore::llm::LlmError;
use agcore::llm::embedding::{EmbeddingBatch, EmbeddingModel, InputKind};
use async_trait::async_trait;

/// An embedding model whose query vectors are kept, by query text, for
/// the run. Documents pass through unchanged (the stores' index embeds
/// each once already). `Send + Sync`.
pub struct QueryCache {
    inner: Arc<dyn EmbeddingModel>,
    queries: Mutex<HashMap<String, Vec<f32>>>,
}

impl QueryCache {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn EmbeddingModel>) -> Self {
        Self {
            inner,
            queries: Mutex::new(HashMap::new()),
        }
    }

    fn cached(&self, text: &str) -> Option<Vec<f32>> {
        self.queries
            .lock()
            .ok()
            .and_then(|map| map.get(text).cloned())
    }
}

#[async_trait]
impl EmbeddingModel for QueryCache {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    fn normalized(&self) -> bool {
        self.inner.normalized()
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        self.inner.embed(texts, kind).await
    }

    async fn embed_query(&self, text: &str) -> Result<Vec<f32>, LlmError> {
        if let Some(vector) = self.cached(text) {
            return Ok(vector);
        }
        let vector = self.inner.embed_query(text).await?;
        if let Ok(mut map) = self.queries.lock() {
            map.insert(text.to_owned(), vector.clone());
        }
        Ok(vector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(AtomicUsize);

    #[async_trait]
    impl EmbeddingModel for Counting {
        fn model_id(&self) -> &str {
            "counting"
        }
        fn dimensions(&self) -> usize {
            2
        }
        async fn embed(&self, texts: &[String], _: InputKind) -> Result<EmbeddingBatch, LlmError> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(EmbeddingBatch {
                vectors: texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect(),
                prompt_tokens: 0,
            })
        }
    }

    #[tokio::test]
    async fn a_query_is_embedded_once_and_documents_every_time() {
        let inner = Arc::new(Counting(AtomicUsize::new(0)));
        let cache = QueryCache::new(inner.clone());
        assert_eq!(cache.embed_query("where").await.unwrap(), vec![5.0, 1.0]);
        assert_eq!(cache.embed_query("where").await.unwrap(), vec![5.0, 1.0]);
        assert_eq!(inner.0.load(Ordering::SeqCst), 1);
        assert_eq!(cache.embed_query("when?").await.unwrap(), vec![5.0, 1.0]);
        assert_eq!(inner.0.load(Ordering::SeqCst), 2);
        let docs = vec!["a".to_owned(), "a".to_owned()];
        cache.embed(&docs, InputKind::Document).await.unwrap();
        cache.embed(&docs, InputKind::Document).await.unwrap();
        assert_eq!(inner.0.load(Ordering::SeqCst), 6);
        assert_eq!(cache.model_id(), "counting");
    }
}
