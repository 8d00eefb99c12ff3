//! The OpenAI error object (`{"error": {"message", "type", "param", "code"}}`)
//! and its mapping to [`LlmError`].

use std::time::Duration;

use serde::Deserialize;

use crate::LlmError;

/// Longest body excerpt kept in an error, in bytes.
pub(crate) const EXCERPT_BYTES: usize = 500;

/// The first `max` bytes of `text`, cut back to a character boundary, with `…`
/// appended when something was cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = text.get(..end).unwrap_or_default().to_owned();
    out.push('…');
    out
}

/// `{"error": {...}}` as OpenAI and most compatible servers send it.
#[cfg_attr(not(feature = "openai"), allow(dead_code))]
#[derive(Debug, Deserialize)]
struct ErrorEnvelope {
    error: ErrorBody,
}

/// The inner error object. Some servers send a bare string instead.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Object {
        #[serde(default)]
        message: Option<String>,
        #[serde(default, rename = "type")]
        kind: Option<String>,
        #[serde(default)]
        code: Option<serde_json::Value>,
    },
    Text(String),
}

/// What an error body says, as far as it can be read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    /// The human-readable message (or a body excerpt when it is not JSON).
    pub message: String,
    /// `error.type`, when sent.
    pub kind: Option<String>,
    /// `error.code` as text (string or number), when sent.
    pub code: Option<String>,
}

impl ApiError {
    /// Reads an error body; falls back to an excerpt of the raw text.
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn parse(body: &str) -> Self {
        if let Ok(envelope) = serde_json::from_str::<ErrorEnvelope>(body) {
            return Self::from_body(envelope.error);
        }
        Self {
            message: excerpt(body, EXCERPT_BYTES),
            kind: None,
            code: None,
        }
    }

    /// Reads the `error` member of an already parsed JSON value.
    #[cfg(feature = "chat")]
    pub(crate) fn from_value(value: &serde_json::Value) -> Self {
        match serde_json::from_value::<ErrorBody>(value.clone()) {
            Ok(body) => Self::from_body(body),
            Err(_) => Self {
                message: excerpt(&value.to_string(), EXCERPT_BYTES),
                kind: None,
                code: None,
            },
        }
    }

    fn from_body(body: ErrorBody) -> Self {
        match body {
            ErrorBody::Object {
                message,
                kind,
                code,
            } => Self {
                message: excerpt(message.as_deref().unwrap_or(""), EXCERPT_BYTES),
                kind,
                code: code.and_then(|c| match c {
                    serde_json::Value::String(s) => Some(s),
                    serde_json::Value::Null => None,
                    other => Some(other.to_string()),
                }),
            },
            ErrorBody::Text(text) => Self {
                message: excerpt(&text, EXCERPT_BYTES),
                kind: None,
                code: None,
            },
        }
    }

    /// Whether the server says the prompt does not fit the context window
    /// (OpenAI code `context_length_exceeded`; llama.cpp and vLLM say so in the message).
    pub(crate) fn is_context_length(&self) -> bool {
        let code = self.code.as_deref().unwrap_or("");
        let kind = self.kind.as_deref().unwrap_or("");
        let message = self.message.to_ascii_lowercase();
        code == "context_length_exceeded"
            || kind == "context_length_exceeded"
            || message.contains("context_length_exceeded")
            || message.contains("maximum context length")
            || message.contains("exceeds the context")
            || message.contains("exceed context window")
    }

    /// The message with the code appended, for error texts.
    pub(crate) fn describe(&self) -> String {
        match (&self.code, self.message.is_empty()) {
            (Some(code), false) => format!("{} (code {code})", self.message),
            (Some(code), true) => format!("code {code}"),
            (None, _) => self.message.clone(),
        }
    }

    /// The error for an HTTP response with this body and `status`.
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn into_http_error(self, status: u16, retry_after: Option<Duration>) -> LlmError {
        match status {
            401 | 403 => LlmError::Authentication {
                message: self.describe(),
            },
            429 => LlmError::RateLimit {
                retry_after,
                message: self.describe(),
            },
            400 if self.is_context_length() => LlmError::ContextLengthExceeded {
                message: self.describe(),
            },
            400 | 404 | 413 | 422 => LlmError::InvalidRequest {
                message: self.describe(),
            },
            500..=599 => LlmError::Server {
                status,
                message: self.describe(),
            },
            _ => LlmError::Http {
                status,
                body: self.describe(),
            },
        }
    }

    /// The error for an error object received inside an event stream.
    pub(crate) fn into_stream_error(self) -> LlmError {
        let kind = self.kind.as_deref().unwrap_or("");
        let code = self.code.as_deref().unwrap_or("");
        if self.is_context_length() {
            LlmError::ContextLengthExceeded {
                message: self.describe(),
            }
        } else if kind == "rate_limit_error" || code == "rate_limit_exceeded" {
            LlmError::RateLimit {
                retry_after: None,
                message: self.describe(),
            }
        } else if kind == "invalid_request_error" {
            LlmError::InvalidRequest {
                message: self.describe(),
            }
        } else {
            LlmError::Stream(format!("server sent an error: {}", self.describe()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_cuts_at_char_boundary() {
        let text = "日本語".repeat(400);
        let cut = excerpt(&text, 500);
        assert!(cut.len() <= 500 + '…'.len_utf8());
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt("short", 500), "short");
    }

    #[test]
    fn parses_openai_error_object() {
        let body = r#"{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        let api = ApiError::parse(body);
        assert_eq!(api.code.as_deref(), Some("context_length_exceeded"));
        assert!(api.is_context_length());
        assert!(matches!(
            api.into_http_error(400, None),
            LlmError::ContextLengthExceeded { .. }
        ));
    }

    #[test]
    fn non_json_body_becomes_excerpt() {
        let api = ApiError::parse("<html>bad gateway</html>");
        assert_eq!(api.message, "<html>bad gateway</html>");
        assert!(matches!(
            api.into_http_error(502, None),
            LlmError::Server { status: 502, .. }
        ));
    }

    #[test]
    fn numeric_code_and_string_error() {
        let api = ApiError::parse(r#"{"error":{"message":"x","code":500}}"#);
        assert_eq!(api.code.as_deref(), Some("500"));
        let api = ApiError::parse(r#"{"error":"model not found"}"#);
        assert_eq!(api.message, "model not found");
        assert!(matches!(
            api.into_http_error(404, None),
            LlmError::InvalidRequest { .. }
        ));
    }
}
