//! The request log: one `info` line per authenticated request with the
//! method, the path (never the query string, which may hold memory text),
//! the status, the key's public id and the time taken. Never a key, a body
//! or memory text.

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

use crate::auth::Caller;

/// Middleware writing the request log line.
pub async fn log_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let key = request
        .extensions()
        .get::<Caller>()
        .map(|c| c.key_id.clone())
        .unwrap_or_default();
    let response = next.run(request).await;
    tracing::info!(
        %method,
        path = %path,
        status = response.status().as_u16(),
        key = %key,
        micros = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}
