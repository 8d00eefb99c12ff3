use std::time::Duration;

use thiserror::Error;

/// Everything that can go wrong talking to a model.
///
/// No variant ever carries an API key: request headers are never copied into
/// errors, and HTTP bodies are cut to a short excerpt.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LlmError {
    /// HTTP 401/403: the API key is missing, wrong or lacks permission.
    #[error("authentication failed: {message}")]
    Authentication {
        /// The server's explanation (excerpt).
        message: String,
    },
    /// HTTP 429: too many requests or tokens.
    #[error("rate limited{}: {message}", retry_after.map(|d| format!(" (retry after {} ms)", d.as_millis())).unwrap_or_default())]
    RateLimit {
        /// The server's `Retry-After` (or `retry-after-ms`), when sent.
        retry_after: Option<Duration>,
        /// The server's explanation (excerpt).
        message: String,
    },
    /// The request (connect, send or the whole call) exceeded its timeout.
    #[error("request timed out after {0:?}")]
    Timeout(Duration),
    /// The prompt does not fit the model's context window.
    #[error("context length exceeded: {message}")]
    ContextLengthExceeded {
        /// The server's explanation (excerpt).
        message: String,
    },
    /// HTTP 400/404/422 or a request we refuse to send: fixing the request is required.
    #[error("invalid request: {message}")]
    InvalidRequest {
        /// What is wrong.
        message: String,
    },
    /// HTTP 5xx: the server failed.
    #[error("server error (HTTP {status}): {message}")]
    Server {
        /// HTTP status code (500–599).
        status: u16,
        /// Body excerpt.
        message: String,
    },
    /// Any other unexpected HTTP status.
    #[error("unexpected HTTP status {status}: {body}")]
    Http {
        /// HTTP status code.
        status: u16,
        /// Body excerpt (at most a few hundred bytes).
        body: String,
    },
    /// A connection-level failure (DNS, refused, reset) before a status was received.
    #[error("connection failed: {0}")]
    Connection(String),
    /// The response body is not the JSON we expect.
    #[error("could not decode response: {message}")]
    Decode {
        /// What failed to decode, with a body excerpt.
        message: String,
    },
    /// The event stream broke: transport error, bad event, or ended without a finish reason.
    #[error("stream error: {0}")]
    Stream(String),
    /// A tool the tool-call loop ran failed in a way that ends the turn.
    #[error("tool `{tool}` failed: {message}")]
    Tool {
        /// Tool name.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// A hook blocked the request.
    #[error("blocked by hook: {reason}")]
    HookBlocked {
        /// The hook's reason.
        reason: String,
    },
    /// A configured limit (tool turns, budget) was reached.
    #[error("limit exceeded: {0}")]
    LimitExceeded(String),
    /// Bad configuration (missing base URL, unknown provider name, …).
    #[error("configuration error: {0}")]
    Config(String),
    /// The operation was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

impl LlmError {
    /// Whether the same request may succeed if tried again later: rate limits,
    /// timeouts, 5xx, connection failures and broken streams. Authentication,
    /// invalid requests, context overflow, decode errors and cancellation are not.
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            Self::RateLimit { .. }
                | Self::Timeout(_)
                | Self::Server { .. }
                | Self::Connection(_)
                | Self::Stream(_)
        )
    }

    /// The delay the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimit { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
