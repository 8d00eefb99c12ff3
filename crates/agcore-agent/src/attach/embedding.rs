//! The `embedding` section of `simple` and `file` stores, and
//! [`EmbedderFactory`]: how a section becomes an embedding model.

use std::path::PathBuf;
use std::sync::Arc;

use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingModel, HashingEmbedder};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chunking::ChunkStrategy;
use super::interpolate::Secret;

/// Which kind of embedding model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EmbeddingProviderKind {
    /// An OpenAI-compatible `/v1/embeddings` server.
    #[default]
    Openai,
    /// An in-process model folder (`params.model_path`); opened by a factory
    /// that supports it (the `agcore` facade's, feature `local-embeddings`).
    Local,
    /// An int8 or f32 ONNX export of a sentence-embedding model in a folder
    /// (`params.model_path`: a `.onnx` file and `tokenizer.json`), run by
    /// ONNX Runtime loaded from `ORT_DYLIB_PATH`; opened by a factory that
    /// supports it (the `agcore` facade's, feature `local-embeddings-onnx`).
    Onnx,
    /// Feature hashing of words: no meaning, no I/O (tests, demos; beyond
    /// the seed).
    Hashing,
}

/// `params` of an embedding section (seed 003's free-form keys, named).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingParams {
    /// With `max_length`: embed a longer text as windows of `max_length`
    /// characters (the mean of their vectors) instead of its beginning.
    #[serde(default)]
    pub use_chunking: Option<bool>,
    /// How `use_chunking` cuts: `markdown` (headings first, the default) or `chars`.
    #[serde(default)]
    pub chunk_strategy: Option<ChunkStrategy>,
    /// Most characters embedded in one piece; absent: the whole text.
    #[serde(default)]
    pub max_length: Option<usize>,
    /// Model folder for `provider: local`.
    #[serde(default)]
    pub model_path: Option<PathBuf>,
    /// Vector length to request (`openai`), or buckets (`hashing`, default 384).
    #[serde(default)]
    pub dimensions: Option<usize>,
}

/// `embedding: { provider, model, api_key, base_url, params }` (seed 003's
/// `EmbeddingConfig`). `api_key` is usually `${VAR}`; it is a [`Secret`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingSettings {
    /// The kind of model.
    #[serde(default)]
    pub provider: EmbeddingProviderKind,
    /// Model name sent to the server, or recorded with vectors.
    #[serde(default)]
    pub model: Option<String>,
    /// API key (`openai`); default: the environment's `OPENAI_API_KEY`.
    #[serde(default)]
    pub api_key: Option<Secret>,
    /// Server base URL ending before `/embeddings` (`openai`).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Further settings.
    #[serde(default)]
    pub params: EmbeddingParams,
}

/// Opens embedding models for store configurations. The default,
/// [`DefaultEmbedders`], handles `openai` (feature `openai`) and `hashing`;
/// the `agcore` facade supplies one that also opens `local` models.
#[async_trait]
pub trait EmbedderFactory: Send + Sync {
    /// The model `settings` describe.
    ///
    /// # Errors
    /// [`LlmError::Config`] for a provider this factory cannot open;
    /// connection errors from probing a server.
    async fn open(&self, settings: &EmbeddingSettings)
    -> Result<Arc<dyn EmbeddingModel>, LlmError>;
}

/// The built-in [`EmbedderFactory`]: `hashing` always, `openai` with this
/// crate's `openai` feature, `local` never (use the facade's factory).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultEmbedders;

#[async_trait]
impl EmbedderFactory for DefaultEmbedders {
    async fn open(
        &self,
        settings: &EmbeddingSettings,
    ) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
        match settings.provider {
            EmbeddingProviderKind::Hashing => Ok(Arc::new(HashingEmbedder::new(
                settings.params.dimensions.unwrap_or(384),
            ))),
            EmbeddingProviderKind::Openai => open_openai(settings).await,
            EmbeddingProviderKind::Local => Err(LlmError::Config(
                "embedding provider `local` needs an embedder factory that opens local models \
                 (the `agcore` crate's, feature `local-embeddings`)"
                    .into(),
            )),
            EmbeddingProviderKind::Onnx => Err(LlmError::Config(
                "embedding provider `onnx` needs an embedder factory that opens ONNX models \
                 (the `agcore` crate's, feature `local-embeddings-onnx`)"
                    .into(),
            )),
        }
    }
}

#[cfg(feature = "openai")]
async fn open_openai(settings: &EmbeddingSettings) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    use agcore_llm::embedding::{OpenAiEmbedder, OpenAiEmbeddingConfig};
    let mut config = OpenAiEmbeddingConfig::from_env();
    if let Some(url) = &settings.base_url {
        config.base_url.clone_from(url);
    }
    if let Some(model) = &settings.model {
        config.model.clone_from(model);
    }
    if let Some(key) = &settings.api_key {
        config = config.with_api_key(key.expose());
    }
    if let Some(dimensions) = settings.params.dimensions {
        config = config.with_request_dimensions(dimensions);
    }
    Ok(Arc::new(OpenAiEmbedder::connect(config).await?))
}

#[cfg(not(feature = "openai"))]
async fn open_openai(_: &EmbeddingSettings) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    Err(LlmError::Config(
        "embedding provider `openai` needs the `openai` feature of agcore-agent".into(),
    ))
}
