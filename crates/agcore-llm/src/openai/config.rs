//! Settings of [`crate::OpenAiProvider`].

use std::fmt;
use std::time::Duration;

/// The OpenAI API base URL used when none is configured.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Settings of an OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen
/// compatible mode, vLLM, llama.cpp server, Ollama `/v1`, …).
///
/// Build it with [`OpenAiConfig::new`] and the `with_*` methods, or read it
/// from the environment with [`OpenAiConfig::from_env`]. The API key is never
/// shown by `Debug` (it prints `"***"`), and header values are not shown
/// either (they may carry credentials).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use agcore_llm::OpenAiConfig;
///
/// let config = OpenAiConfig::new("http://127.0.0.1:8080/v1")
///     .with_api_key("sk-secret")
///     .with_default_model("smollm2")
///     .with_request_timeout(Duration::from_secs(30))
///     .with_header("x-request-source", "docs");
/// assert!(!format!("{config:?}").contains("sk-secret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct OpenAiConfig {
    /// Provider name for logs and the registry. Default `"openai"`.
    pub name: String,
    /// Base URL ending before `/chat/completions`, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    api_key: Option<String>,
    /// Model used when a request's `model` is empty.
    pub default_model: Option<String>,
    /// Headers added to every request (e.g. `OpenAI-Organization`).
    pub extra_headers: Vec<(String, String)>,
    /// Time allowed to open the TCP/TLS connection. Default 10 s.
    pub connect_timeout: Duration,
    /// Time allowed for a whole non-streaming call, and for a streaming call
    /// until the response headers arrive. Default 600 s (OpenAI's SDK default).
    pub request_timeout: Duration,
    /// Longest silence allowed between two reads of a streamed body. Default 120 s.
    pub stream_idle_timeout: Duration,
    /// Send `stream_options: {"include_usage": true}` with streamed requests so
    /// the last chunk carries the usage. Default `true`; turn it off for
    /// servers that reject the field. A caller's own `stream_options` wins.
    pub stream_include_usage: bool,
    /// Write `"content": ""` instead of `"content": null` on assistant messages
    /// that only carry `tool_calls`. Default `true`: OpenAI, DeepSeek, vLLM and
    /// Ollama accept `""`, while llama.cpp's server (llama-cpp-python) answers
    /// `null` or a missing field with HTTP 500. Set `false` to send the
    /// messages exactly as given.
    pub empty_content_for_tool_calls: bool,
}

impl OpenAiConfig {
    /// Settings for `base_url` (a trailing `/` is ignored), without an API key.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            name: "openai".to_owned(),
            base_url: base_url.into(),
            api_key: None,
            default_model: None,
            extra_headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(600),
            stream_idle_timeout: Duration::from_secs(120),
            stream_include_usage: true,
            empty_content_for_tool_calls: true,
        }
    }

    /// Settings read from the environment: `OPENAI_BASE_URL` (default
    /// [`DEFAULT_BASE_URL`]), `OPENAI_API_KEY` (optional: local servers need
    /// none) and `AGCORE_MODEL` (optional default model). Empty values count
    /// as unset.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut config =
            Self::new(var("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()));
        config.api_key = var("OPENAI_API_KEY");
        config.default_model = var("AGCORE_MODEL");
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

    #[cfg(feature = "chat")]
    pub(crate) fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }

    /// Sets the provider name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the model used when a request's `model` is empty.
    pub fn with_default_model(mut self, model: impl Into<String>) -> Self {
        self.default_model = Some(model.into());
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

    /// Sets the request timeout.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the longest silence allowed inside a streamed body.
    pub fn with_stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }

    /// Whether to ask for the usage chunk when streaming.
    pub fn with_stream_include_usage(mut self, include: bool) -> Self {
        self.stream_include_usage = include;
        self
    }

    /// Whether to send `""` instead of `null` content on tool-call-only assistant messages.
    pub fn with_empty_content_for_tool_calls(mut self, empty: bool) -> Self {
        self.empty_content_for_tool_calls = empty;
        self
    }

    /// `<base_url>/chat/completions`.
    #[cfg(feature = "chat")]
    pub(crate) fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self::new(DEFAULT_BASE_URL)
    }
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<&str> = self.extra_headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("OpenAiConfig")
            .field("name", &self.name)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("default_model", &self.default_model)
            .field("extra_headers", &header_names)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("stream_idle_timeout", &self.stream_idle_timeout)
            .field("stream_include_usage", &self.stream_include_usage)
            .field(
                "empty_content_for_tool_calls",
                &self.empty_content_for_tool_calls,
            )
            .finish()
    }
}
