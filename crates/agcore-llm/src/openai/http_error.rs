//! Mapping HTTP statuses, headers and transport failures to [`LlmError`].

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use crate::LlmError;
use crate::error_object::ApiError;

/// The delay a 429/503 response asks for: `retry-after-ms` (OpenAI, milliseconds)
/// first, then `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The error for a non-success `status` with `body`.
pub(crate) fn status_error(status: u16, headers: &HeaderMap, body: &str) -> LlmError {
    let delay = retry_after(headers, SystemTime::now());
    ApiError::parse(body).into_http_error(status, delay)
}

/// The error for a failed send or body read. `timeout` is the limit that applies.
pub(crate) fn transport_error(error: reqwest::Error, timeout: Duration) -> LlmError {
    let error = error.without_url();
    if error.is_timeout() {
        return LlmError::Timeout(timeout);
    }
    let message = chain(&error);
    if error.is_decode() {
        LlmError::Decode { message }
    } else if error.is_body() {
        LlmError::Stream(message)
    } else {
        LlmError::Connection(message)
    }
}

/// `error: source: source…` (reqwest's own text names only the outer layer).
fn chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            text.push_str(": ");
            text.push_str(&inner_text);
        }
        source = inner.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_seconds_ms_and_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480); // 2015-10-21 07:28:00 GMT
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7")]), now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "7"), ("retry-after-ms", "250")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT")]),
                now
            ),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:27:00 GMT")]),
                now
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn statuses_map_to_variants() {
        let h = HeaderMap::new();
        assert!(matches!(
            status_error(401, &h, "{}"),
            LlmError::Authentication { .. }
        ));
        assert!(matches!(
            status_error(403, &h, ""),
            LlmError::Authentication { .. }
        ));
        assert!(matches!(
            status_error(422, &h, ""),
            LlmError::InvalidRequest { .. }
        ));
        assert!(matches!(
            status_error(503, &h, ""),
            LlmError::Server { status: 503, .. }
        ));
        assert!(
            matches!(status_error(418, &h, "teapot"), LlmError::Http { status: 418, ref body } if body == "teapot")
        );
        let limited = status_error(429, &headers(&[("retry-after", "2")]), "");
        assert_eq!(limited.retry_after(), Some(Duration::from_secs(2)));
    }
}
