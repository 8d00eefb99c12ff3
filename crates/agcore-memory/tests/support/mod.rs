//! A scripted embedding model for the hybrid tests.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use agcore_llm::LlmError;
use agcore_llm::embedding::{
    EmbeddingBatch, EmbeddingModel, HashingEmbedder, InputKind, l2_normalize,
};
use async_trait::async_trait;

/// Dimensions of [`Scripted`] vectors.
pub const DIMS: usize = 16;

/// Counts calls, can be switched off (connection refused), and maps texts
/// containing some phrases to fixed vectors so "meaning" can be scripted;
/// other texts get word hashing.
pub struct Scripted {
    pub calls: AtomicUsize,
    pub texts: AtomicUsize,
    pub down: AtomicBool,
    fixed: Vec<(&'static str, Vec<f32>)>,
    fallback: HashingEmbedder,
}

impl Scripted {
    /// Texts containing a phrase point along its axis (first match wins).
    pub fn new(fixed: &[(&'static str, usize)]) -> Arc<Self> {
        let sparse: Vec<(&'static str, Vec<(usize, f32)>)> = fixed
            .iter()
            .map(|(p, axis)| (*p, vec![(*axis, 1.0)]))
            .collect();
        Self::sparse(&sparse)
    }

    /// Texts containing a phrase get its (normalised) sparse vector.
    pub fn sparse(fixed: &[(&'static str, Vec<(usize, f32)>)]) -> Arc<Self> {
        let fixed = fixed
            .iter()
            .map(|(phrase, parts)| {
                let mut v = vec![0.0; DIMS];
                for (axis, x) in parts {
                    v[*axis] = *x;
                }
                l2_normalize(&mut v);
                (*phrase, v)
            })
            .collect();
        Arc::new(Self {
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
            down: AtomicBool::new(false),
            fixed,
            fallback: HashingEmbedder::new(DIMS),
        })
    }
}

#[async_trait]
impl EmbeddingModel for Scripted {
    fn model_id(&self) -> &str {
        "scripted"
    }
    fn dimensions(&self) -> usize {
        DIMS
    }
    async fn embed(&self, texts: &[String], _: InputKind) -> Result<EmbeddingBatch, LlmError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(LlmError::Connection("connection refused".into()));
        }
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        let vectors = texts
            .iter()
            .map(|t| match self.fixed.iter().find(|(k, _)| t.contains(*k)) {
                Some((_, v)) => v.clone(),
                None => self.fallback.embed_one(t),
            })
            .collect();
        Ok(EmbeddingBatch {
            vectors,
            prompt_tokens: 0,
        })
    }
}

/// Hashes the store's own index terms (stemmed, no stop words, CJK bigrams)
/// into 4,096 signed buckets: a dense hit then shares an index term with
/// the query, as a lexical hit does, whenever the embedding is done.
pub struct TermHashing;

/// Dimensions of [`TermHashing`] vectors.
pub const TERM_DIMS: usize = 4096;

#[async_trait]
impl EmbeddingModel for TermHashing {
    fn model_id(&self) -> &str {
        "term-hashing"
    }
    fn dimensions(&self) -> usize {
        TERM_DIMS
    }
    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        let vectors = texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; TERM_DIMS];
                // Terms as the lexical side analyses them: queries without
                // the documents' CJK unigrams.
                let terms = match kind {
                    InputKind::Query => agcore_memory::retriever::query_terms(t),
                    _ => agcore_memory::retriever::index_terms(t),
                };
                for term in terms {
                    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                    for b in term.as_bytes() {
                        h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
                    }
                    v[(h % TERM_DIMS as u64) as usize] += 1.0;
                }
                l2_normalize(&mut v);
                v
            })
            .collect();
        Ok(EmbeddingBatch {
            vectors,
            prompt_tokens: 0,
        })
    }
}

/// A [`HybridStore`](agcore_memory::hybrid::HybridStore) over an
/// `InMemoryStore` and [`TermHashing`] vectors holding `items`, every
/// vector written (the queue flushed).
pub async fn term_hashing_store(
    config: agcore_memory::hybrid::HybridConfig,
    items: Vec<agcore_memory::MemoryItem>,
) -> agcore_memory::hybrid::HybridStore {
    use agcore_memory::MemoryStore;
    use agcore_memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridStore};
    use agcore_memory::vector::{InMemoryVectors, VectorStore};
    let embedder = Arc::new(TermHashing);
    let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
    let queue =
        EmbeddingQueueConfig::default().with_retry_delay(std::time::Duration::from_millis(20));
    let dense = DenseIndex::new(embedder, vectors as Arc<dyn VectorStore>, queue).unwrap();
    let store = HybridStore::new(Arc::new(agcore_memory::InMemoryStore::new()), dense, config);
    store.save_many(items).await.unwrap();
    store.flush().await;
    store
}
