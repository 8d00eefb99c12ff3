//! [`ServerError`]: what a request or the server can fail with, and its HTTP answer.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use agcore::memory::MemoryError;

/// The body of every error answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// One sentence saying what is wrong (never a key or memory text).
    pub error: String,
}

/// Everything the server fails with. As a response it is a status code and a
/// JSON body `{"error": "<one sentence>"}`; the sentence never holds a key or
/// memory text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// No `Authorization: Bearer` key, or one the server does not know (401).
    #[error("{0}")]
    Unauthorized(String),
    /// The key is valid but may not do this (403).
    #[error("{0}")]
    Forbidden(String),
    /// No such memory, agent or route in the caller's scope (404).
    #[error("{0}")]
    NotFound(String),
    /// The request is not valid data (400).
    #[error("{0}")]
    Invalid(String),
    /// The same memory text already exists (409).
    #[error("{0}")]
    Conflict(String),
    /// The memory store failed (500).
    #[error("memory store: {0}")]
    Memory(MemoryError),
    /// A file of the server (keys, agents) could not be read or written (500).
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A chat endpoint failed (502).
    #[error("chat endpoint: {0}")]
    Upstream(String),
    /// The server is not set up for this request, such as chat without a
    /// configured LLM endpoint (503).
    #[error("{0}")]
    Unavailable(String),
}

impl From<MemoryError> for ServerError {
    fn from(err: MemoryError) -> Self {
        match err {
            MemoryError::NotFound(what) => Self::NotFound(format!("not found: {what}")),
            MemoryError::InvalidInput(why) => Self::Invalid(why),
            MemoryError::AlreadyExists(what) => Self::Conflict(format!("already exists: {what}")),
            other => Self::Memory(other),
        }
    }
}

impl ServerError {
    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Invalid(_) => StatusCode::BAD_REQUEST,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Memory(_) | Self::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Upstream(_) => StatusCode::BAD_GATEWAY,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

impl IntoResponse for ServerError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::warn!(error = %self, "request failed");
        }
        (status, Json(json!({ "error": self.to_string() }))).into_response()
    }
}
