//! HTTP pieces shared by the OpenAI-compatible clients (chat completions and
//! embeddings): base-URL check, credential headers, the reqwest client and a
//! JSON `POST` whose failures become [`LlmError`]s.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::http_error::{status_error, transport_error};
use crate::LlmError;
use crate::error_object::excerpt;

/// Checks that `base_url` is `http(s)://…`.
///
/// # Errors
/// [`LlmError::Config`] otherwise (the URL is cut to 100 bytes in the message).
pub(crate) fn check_base_url(base_url: &str) -> Result<(), LlmError> {
    let base = base_url.trim();
    if base.starts_with("http://") || base.starts_with("https://") {
        Ok(())
    } else {
        Err(LlmError::Config(format!(
            "base URL must start with http:// or https://, got {:?}",
            excerpt(base, 100)
        )))
    }
}

/// `<base_url>/<path>` with one `/` between them.
pub(crate) fn endpoint(base_url: &str, path: &str) -> String {
    format!("{}/{path}", base_url.trim().trim_end_matches('/'))
}

/// The headers sent with every request: `Authorization: Bearer <key>` when a
/// key is set, then `extra`. Every value is marked sensitive, so `Debug` of
/// the map or of a request never shows it.
///
/// # Errors
/// [`LlmError::Config`] when the key or a header is not a valid header; the
/// message never contains the key or a header value.
pub(crate) fn request_headers(
    api_key: Option<&str>,
    extra: &[(String, String)],
) -> Result<HeaderMap, LlmError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = api_key {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", key.trim())).map_err(|_| {
            LlmError::Config("the API key contains characters not allowed in a header".to_owned())
        })?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    for (name, value) in extra {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| LlmError::Config(format!("invalid header name {name:?}")))?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| LlmError::Config(format!("invalid value for header {name}")))?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(headers)
}

/// A reqwest client with `connect_timeout`.
///
/// # Errors
/// [`LlmError::Config`] when the client cannot be built (TLS set-up).
pub(crate) fn build_client(connect_timeout: Duration) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .build()
        .map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {e}")))
}

/// One JSON `POST` to an OpenAI-compatible endpoint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonPost<'a> {
    /// The client to send with.
    pub client: &'a reqwest::Client,
    /// The full endpoint URL.
    pub url: &'a str,
    /// Headers from [`request_headers`].
    pub headers: &'a HeaderMap,
    /// The API key, only to blank it out of echoed error bodies.
    pub api_key: Option<&'a str>,
    /// Limit until the response headers arrive.
    pub send_timeout: Duration,
    /// Limit for the whole exchange including the body (reqwest's request
    /// timeout), when the body is read in one go.
    pub total_timeout: Option<Duration>,
}

impl JsonPost<'_> {
    /// Sends `body` (JSON bytes) and returns the response when its status is a
    /// success. Records the status on the current `tracing` span.
    ///
    /// # Errors
    /// [`LlmError::Timeout`] after `send_timeout`; transport failures as
    /// `Connection`/`Decode`/`Stream`; a non-success status as mapped by the
    /// status table (`Authentication`, `RateLimit`, `InvalidRequest`,
    /// `ContextLengthExceeded`, `Server`, `Http`) with the key blanked out.
    pub(crate) async fn send(&self, body: Vec<u8>) -> Result<reqwest::Response, LlmError> {
        let mut builder = self
            .client
            .post(self.url)
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(timeout) = self.total_timeout {
            builder = builder.timeout(timeout);
        }
        let limit = self.send_timeout;
        let response = match tokio::time::timeout(limit, builder.send()).await {
            Ok(result) => result.map_err(|e| transport_error(e, limit))?,
            Err(_) => return Err(LlmError::Timeout(limit)),
        };
        let status = response.status();
        tracing::Span::current().record("status", status.as_u16());
        if status.is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let mut body = response.text().await.unwrap_or_default();
        if let Some(key) = self.api_key.map(str::trim).filter(|k| !k.is_empty()) {
            // Some servers echo the credential they rejected.
            body = body.replace(key, "***");
        }
        Err(status_error(status.as_u16(), &headers, &body))
    }
}

/// Reads a whole response body; `limit` is the timeout reported when reading stalls.
///
/// # Errors
/// As [`transport_error`]: `Timeout`, `Decode`, `Stream` or `Connection`.
pub(crate) async fn read_body(
    response: reqwest::Response,
    limit: Duration,
) -> Result<bytes::Bytes, LlmError> {
    response
        .bytes()
        .await
        .map_err(|e| transport_error(e, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_and_endpoint() {
        assert!(check_base_url("http://127.0.0.1:1/v1").is_ok());
        assert!(check_base_url(" https://api.openai.com/v1").is_ok());
        assert!(matches!(
            check_base_url("ftp://x"),
            Err(LlmError::Config(_))
        ));
        assert_eq!(
            endpoint("http://h/v1/", "embeddings"),
            "http://h/v1/embeddings"
        );
    }

    #[test]
    fn headers_are_sensitive_and_errors_hide_values() {
        let headers = request_headers(
            Some("sk-secret"),
            &[("x-org".to_owned(), "org-1".to_owned())],
        )
        .unwrap();
        assert!(headers.get(AUTHORIZATION).unwrap().is_sensitive());
        assert!(headers.get("x-org").unwrap().is_sensitive());
        assert!(!format!("{headers:?}").contains("sk-secret"));
        let error = request_headers(Some("sk-bad\nkey"), &[]).unwrap_err();
        assert!(!error.to_string().contains("sk-bad"));
    }
}
