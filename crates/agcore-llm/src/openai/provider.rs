//! [`OpenAiProvider`]: any OpenAI-compatible `/chat/completions` endpoint over HTTP.

use std::fmt;
use std::time::{Duration, Instant};

use agcore_types::{ChatRequest, ChatResponse, MessageContent, Role, StreamOptions};
use async_trait::async_trait;
use futures::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap};
use tracing::{Instrument, field::Empty};

use super::OpenAiConfig;
use super::http::{JsonPost, build_client, check_base_url, request_headers};
use super::http_error::transport_error;
use crate::error_object::{ApiError, EXCERPT_BYTES, excerpt};
use crate::{ChatStream, LlmError, LlmProvider, StreamEvent, decode_sse, events_from_response};

/// An [`LlmProvider`] for OpenAI and every server that speaks its Chat
/// Completions API (DeepSeek, Qwen compatible mode, vLLM, llama.cpp server,
/// Ollama `/v1`, …).
///
/// `chat` sends `POST <base_url>/chat/completions` and maps failures to
/// [`LlmError`]: 401/403 → `Authentication`, 429 → `RateLimit` (with
/// `retry-after-ms` / `Retry-After` seconds or HTTP-date), 400 with code
/// `context_length_exceeded` → `ContextLengthExceeded`, other 400/404/413/422 →
/// `InvalidRequest`, 5xx → `Server`, any other status → `Http` with a body
/// excerpt (≤ 500 bytes, cut at a character boundary), timeouts → `Timeout`,
/// connection failures → `Connection`, an undecodable body → `Decode`.
///
/// `chat_stream` sets `stream: true` (and `stream_options.include_usage`
/// unless disabled) and decodes the body with [`decode_sse`]. A server that
/// ignores `stream` and answers with plain JSON still yields the same events.
///
/// The API key is sent as `Authorization: Bearer …` (marked sensitive) and
/// appears in no `Debug` output, log line or error. Each call runs in a
/// `tracing` span `llm.request` with `provider`, `model`, `stream`, `status`,
/// `latency_ms`, `prompt_tokens` and `completion_tokens`.
///
/// # Examples
///
/// ```no_run
/// use agcore_llm::{LlmProvider, OpenAiConfig, OpenAiProvider};
/// use agcore_llm::types::{ChatMessage, ChatRequest};
///
/// # async fn run() -> Result<(), agcore_llm::LlmError> {
/// let provider = OpenAiProvider::new(
///     OpenAiConfig::new("http://127.0.0.1:8080/v1").with_default_model("smollm2"),
/// )?;
/// let response = provider
///     .chat(ChatRequest::new("", vec![ChatMessage::user("Say hi")]))
///     .await?;
/// println!("{}", response.text());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    client: reqwest::Client,
    headers: HeaderMap,
    url: String,
}

impl OpenAiProvider {
    /// A provider for `config`.
    ///
    /// # Errors
    /// [`LlmError::Config`] when the base URL is not `http(s)://…`, a header
    /// name or value is invalid, the API key is not a valid header value, or
    /// the HTTP client cannot be built.
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        check_base_url(&config.base_url)?;
        let headers = request_headers(config.api_key(), &config.extra_headers)?;
        let client = build_client(config.connect_timeout)?;
        let url = config.chat_completions_url();
        Ok(Self {
            config,
            client,
            headers,
            url,
        })
    }

    /// A provider configured by [`OpenAiConfig::from_env`] (`OPENAI_API_KEY`,
    /// `OPENAI_BASE_URL`, `AGCORE_MODEL`).
    ///
    /// # Errors
    /// As [`OpenAiProvider::new`].
    pub fn from_env() -> Result<Self, LlmError> {
        Self::new(OpenAiConfig::from_env())
    }

    /// The settings in use.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The request as it will be sent: default model filled in, streaming
    /// fields set or cleared, tool-call-only assistant content made `""` when
    /// configured.
    fn prepare(&self, mut request: ChatRequest, stream: bool) -> Result<ChatRequest, LlmError> {
        if request.model.trim().is_empty() {
            request.model = self.config.default_model.clone().ok_or_else(|| {
                LlmError::Config(
                    "the request names no model and no default model is set (set AGCORE_MODEL \
                     or OpenAiConfig::default_model, or name the model in the request)"
                        .to_owned(),
                )
            })?;
        }
        if stream {
            request.stream = Some(true);
            if self.config.stream_include_usage && request.stream_options.is_none() {
                request.stream_options = Some(StreamOptions {
                    include_usage: Some(true),
                    ..StreamOptions::default()
                });
            }
        } else {
            request.stream = None;
            request.stream_options = None;
        }
        if self.config.empty_content_for_tool_calls {
            for message in &mut request.messages {
                if message.role == Role::Assistant
                    && message.has_tool_calls()
                    && message.content.is_none()
                {
                    message.content = Some(MessageContent::Text(String::new()));
                }
            }
        }
        Ok(request)
    }

    async fn send(
        &self,
        request: &ChatRequest,
        timeout: Option<Duration>,
    ) -> Result<reqwest::Response, LlmError> {
        let body = serde_json::to_vec(request).map_err(|e| LlmError::InvalidRequest {
            message: format!("request cannot be serialized: {e}"),
        })?;
        JsonPost {
            client: &self.client,
            url: &self.url,
            headers: &self.headers,
            api_key: self.config.api_key(),
            send_timeout: self.config.request_timeout,
            total_timeout: timeout,
        }
        .send(body)
        .await
    }

    fn span(&self, model: &str, stream: bool) -> tracing::Span {
        tracing::info_span!(
            "llm.request",
            provider = %self.config.name,
            model = %model,
            stream,
            status = Empty,
            latency_ms = Empty,
            prompt_tokens = Empty,
            completion_tokens = Empty,
        )
    }
}

/// Reads a JSON chat completion body.
fn decode_response(body: &[u8]) -> Result<ChatResponse, LlmError> {
    serde_json::from_slice::<ChatResponse>(body).map_err(|e| {
        let text = String::from_utf8_lossy(body);
        match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(value) if value.get("error").is_some() => ApiError::parse(&text).into_stream_error(),
            _ => LlmError::Decode {
                message: format!(
                    "response is not a chat completion: {e}; body: {}",
                    excerpt(&text, EXCERPT_BYTES)
                ),
            },
        }
    })
}

fn record_usage(span: &tracing::Span, response: &ChatResponse) {
    if let Some(usage) = &response.usage {
        span.record("prompt_tokens", usage.prompt_tokens);
        span.record("completion_tokens", usage.completion_tokens);
    }
}

#[async_trait]
impl LlmProvider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.config.name
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let request = self.prepare(request, false)?;
        let span = self.span(&request.model, false);
        let limit = self.config.request_timeout;
        async {
            let started = Instant::now();
            let response = self.send(&request, Some(limit)).await?;
            let body = response
                .bytes()
                .await
                .map_err(|e| transport_error(e, limit))?;
            let response = decode_response(&body)?;
            let span = tracing::Span::current();
            span.record("latency_ms", started.elapsed().as_millis() as u64);
            record_usage(&span, &response);
            tracing::debug!("chat completion received");
            Ok(response)
        }
        .instrument(span)
        .await
    }

    async fn chat_stream(&self, request: ChatRequest) -> Result<ChatStream, LlmError> {
        let request = self.prepare(request, true)?;
        let span = self.span(&request.model, true);
        let started = Instant::now();
        let response = self.send(&request, None).instrument(span.clone()).await?;
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let idle = self.config.stream_idle_timeout;
        let events = if is_json {
            let body = response
                .bytes()
                .await
                .map_err(|e| transport_error(e, idle))?;
            let events = events_from_response(&decode_response(&body)?);
            futures::stream::iter(events.into_iter().map(Ok)).boxed()
        } else {
            decode_sse(idle_limited(response.bytes_stream(), idle))
        };
        let traced = events.inspect(move |item| match item {
            Ok(StreamEvent::Usage(usage)) => {
                span.record("prompt_tokens", usage.prompt_tokens);
                span.record("completion_tokens", usage.completion_tokens);
            }
            Ok(StreamEvent::TurnComplete { reason }) => {
                span.record("latency_ms", started.elapsed().as_millis() as u64);
                span.in_scope(|| tracing::debug!(?reason, "stream completed"));
            }
            Err(error) => span.in_scope(|| tracing::warn!(%error, "stream failed")),
            Ok(_) => {}
        });
        Ok(Box::pin(traced))
    }
}

/// Ends a body stream with [`LlmError::Timeout`] when no bytes arrive for `idle`.
fn idle_limited<S>(
    body: S,
    idle: Duration,
) -> impl futures::Stream<Item = Result<bytes::Bytes, LlmError>> + Send + 'static
where
    S: futures::Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send + 'static,
{
    futures::stream::unfold(Some(Box::pin(body)), move |body| async move {
        let mut body = body?;
        match tokio::time::timeout(idle, body.next()).await {
            Ok(Some(Ok(bytes))) => Some((Ok(bytes), Some(body))),
            Ok(Some(Err(error))) => Some((Err(transport_error(error, idle)), None)),
            Ok(None) => None,
            Err(_) => Some((Err(LlmError::Timeout(idle)), None)),
        }
    })
}

impl fmt::Debug for OpenAiProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiProvider")
            .field("config", &self.config)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}
