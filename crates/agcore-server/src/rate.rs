//! Rate limiting per API key (governor's GCRA): over the limit, 429 with a
//! `Retry-After` header and a sentence saying so.

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde_json::json;

use crate::auth::Caller;
use crate::state::Limits;

/// Requests counted per key id (unauthenticated requests share one bucket).
#[derive(Debug, Clone)]
pub struct KeyRateLimiter {
    limiter: Arc<DefaultKeyedRateLimiter<String>>,
    per_second: u32,
}

impl KeyRateLimiter {
    /// A limiter allowing `limits.requests_per_second` on average and bursts of `limits.burst`.
    pub fn new(limits: &Limits) -> Self {
        let per_second = NonZeroU32::new(limits.requests_per_second).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(limits.burst).unwrap_or(per_second);
        Self {
            limiter: Arc::new(RateLimiter::keyed(
                Quota::per_second(per_second).allow_burst(burst),
            )),
            per_second: per_second.get(),
        }
    }
}

/// Middleware: 429 when the caller's key made too many requests.
pub async fn limit_rate(
    State(limiter): State<KeyRateLimiter>,
    request: Request,
    next: Next,
) -> Response {
    let key = request
        .extensions()
        .get::<Caller>()
        .map_or_else(|| "-".to_owned(), |c| c.key_id.clone());
    match limiter.limiter.check_key(&key) {
        Ok(()) => next.run(request).await,
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let seconds = wait.as_secs().max(1);
            let message = format!(
                "rate limit exceeded: at most {} requests per second per key; retry in {seconds} s",
                limiter.per_second
            );
            let mut response = (
                StatusCode::TOO_MANY_REQUESTS,
                Json(json!({ "error": message })),
            )
                .into_response();
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert("retry-after", value);
            }
            response
        }
    }
}
