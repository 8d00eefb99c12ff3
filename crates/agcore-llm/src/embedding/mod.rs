//! Embedding models: text in, one dense vector per text out.
//!
//! [`EmbeddingModel`] is the trait every embedder implements (the
//! OpenAI-compatible `/v1/embeddings` client `OpenAiEmbedder`, feature `openai`, the in-process candle models of
//! `agcore-embed-local`, [`HashingEmbedder`] for tests and offline use). It is
//! shared as `Arc<dyn EmbeddingModel>`.
//!
//! Vectors are compared by cosine similarity. Every embedder documents whether
//! it returns unit-length vectors ([`EmbeddingModel::normalized`]); stores
//! normalise again on write, so both kinds can be mixed with one index.

mod hashing;
#[cfg(feature = "openai")]
mod openai;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::LlmError;

pub use hashing::HashingEmbedder;
#[cfg(feature = "openai")]
pub use openai::{
    DEFAULT_EMBEDDING_MODEL, EncodingFormat, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode,
};

/// What a text is, for models that embed queries and documents differently.
///
/// E5 models expect `"query: "` / `"passage: "` prefixes, BGE a query
/// instruction, Cohere and Voyage an `input_type`; symmetric models such as
/// all-MiniLM-L6-v2 ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// A search query (a question, a user turn).
    Query,
    /// A stored text to be found (a memory, a page, a chunk).
    Document,
}

/// The identity of a vector space: which model made the vectors and their
/// length. Vectors from two different spaces cannot be compared; stores keep
/// the space they were written with and refuse another one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EmbeddingSpace {
    /// The model id, e.g. `"text-embedding-3-small"` or
    /// `"local:all-MiniLM-L6-v2"`; free text, compared exactly.
    pub model: String,
    /// Vector length (number of `f32` components), ≥ 1.
    pub dimensions: usize,
}

impl EmbeddingSpace {
    /// A space for `model` with `dimensions` components.
    pub fn new(model: impl Into<String>, dimensions: usize) -> Self {
        Self {
            model: model.into(),
            dimensions,
        }
    }
}

impl std::fmt::Display for EmbeddingSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} dimensions)", self.model, self.dimensions)
    }
}

/// The answer to one [`EmbeddingModel::embed`] call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmbeddingBatch {
    /// One vector per input text, in input order, each of
    /// [`EmbeddingModel::dimensions`] components.
    pub vectors: Vec<Vec<f32>>,
    /// Input tokens the server counted (0 when it does not say or the model
    /// runs in process).
    pub prompt_tokens: u64,
}

/// A text embedding model, shared as `Arc<dyn EmbeddingModel>`.
///
/// # Contract
/// - `embed(texts, kind)` returns exactly `texts.len()` vectors, in order,
///   each of `dimensions()` finite components; an empty `texts` gives an
///   empty batch without any I/O.
/// - Implementations split large inputs into batches themselves
///   ([`EmbeddingModel::max_batch`] is a hint for callers that queue work).
/// - Errors are [`LlmError`]s: [`LlmError::is_recoverable`] tells a caller
///   (such as a background embedding queue) whether to retry later.
#[async_trait]
pub trait EmbeddingModel: Send + Sync {
    /// The model id recorded with every stored vector (see [`EmbeddingSpace`]).
    fn model_id(&self) -> &str;

    /// Vector length.
    fn dimensions(&self) -> usize;

    /// Whether returned vectors have unit L2 norm. Default `false`.
    fn normalized(&self) -> bool {
        false
    }

    /// The largest number of texts worth sending in one call. Default 64.
    fn max_batch(&self) -> usize {
        64
    }

    /// The vector space of this model.
    fn space(&self) -> EmbeddingSpace {
        EmbeddingSpace::new(self.model_id(), self.dimensions())
    }

    /// Embeds `texts`, each as a `kind`.
    ///
    /// # Errors
    /// Transport, server and decode errors as [`LlmError`]; a server answer
    /// with the wrong number of vectors or the wrong length is
    /// [`LlmError::Decode`].
    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError>;

    /// Embeds one query.
    ///
    /// # Errors
    /// As [`EmbeddingModel::embed`].
    async fn embed_query(&self, text: &str) -> Result<Vec<f32>, LlmError> {
        let batch = self.embed(&[text.to_owned()], InputKind::Query).await?;
        batch
            .vectors
            .into_iter()
            .next()
            .ok_or_else(|| LlmError::Decode {
                message: "the embedding model returned no vector for the query".into(),
            })
    }
}

/// Scales `vector` to unit L2 norm in place; a zero vector is left as it is.
/// Returns the norm it had.
pub fn l2_normalize(vector: &mut [f32]) -> f32 {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in vector.iter_mut() {
            *x /= norm;
        }
    }
    norm
}

/// Checks the shape of an embedder's answer: `expected` vectors of
/// `dimensions` finite components each.
///
/// # Errors
/// [`LlmError::Decode`] naming what is wrong.
pub fn check_batch(
    vectors: &[Vec<f32>],
    expected: usize,
    dimensions: usize,
) -> Result<(), LlmError> {
    if vectors.len() != expected {
        return Err(LlmError::Decode {
            message: format!(
                "the embedding model returned {} vectors for {expected} inputs",
                vectors.len()
            ),
        });
    }
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != dimensions {
            return Err(LlmError::Decode {
                message: format!(
                    "vector {i} has {} components, the model has {dimensions}",
                    v.len()
                ),
            });
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(LlmError::Decode {
                message: format!("vector {i} has a component that is not finite"),
            });
        }
    }
    Ok(())
}
