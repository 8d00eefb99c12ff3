//! [`router`]: every route of the server with its layers.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tower_http::limit::RequestBodyLimitLayer;

use super::{agents, chat, health::health, jsonl, memories, search};
use crate::mcp::MemoryMcp;
use crate::openapi::openapi_json;
use crate::rate::{KeyRateLimiter, limit_rate};
use crate::{AppState, auth};

/// Every route of one scope's memories, mounted at `/v1/memories` (scoped
/// keys) and `/v1/scopes/{agent}/{user}/memories` (admin keys).
fn memory_routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(memories::list).post(memories::add))
        .route("/search", get(search::search))
        .route("/stats", get(search::stats))
        .route("/export", get(jsonl::export))
        .route("/import", post(jsonl::import))
        .route(
            "/{id}",
            get(memories::get)
                .patch(memories::update)
                .delete(memories::delete),
        )
        .route("/{id}/archive", post(memories::archive))
        .route("/{id}/restore", post(memories::restore))
        .route("/{id}/weight", put(memories::weight))
}

/// Turns the plain-text 413 of the body limit into the JSON error shape.
async fn explain_too_large(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE {
        return response;
    }
    let message = "request body too large: the server accepts at most the configured body size (`--max-body-bytes`)";
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Json(json!({ "error": message })),
    )
        .into_response()
}

async fn no_route() -> crate::ServerError {
    crate::ServerError::NotFound("no such route (see /openapi.json)".into())
}

/// The MCP endpoint (streamable HTTP), stateless, answering JSON.
fn mcp_service(state: &Arc<AppState>) -> StreamableHttpService<MemoryMcp, LocalSessionManager> {
    let handler = MemoryMcp::for_keys(&state.memory);
    let mut config = StreamableHttpServerConfig::default();
    config.legacy_session_mode = false;
    config.json_response = true;
    if !state.allowed_hosts.is_empty() {
        config.allowed_hosts.clone_from(&state.allowed_hosts);
    }
    StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// The server's whole [`Router`]: `/health` open, everything else behind a
/// bearer key, a per-key rate limit and the body limit.
///
/// | route | what |
/// |---|---|
/// | `GET /health` | liveness, no key |
/// | `GET /openapi.json` | the OpenAPI 3.1 document, no key |
/// | `/v1/agents`, `/v1/agents/{name}` | agents and their memory settings |
/// | `/v1/memories…` | the memories of a scoped key's scope |
/// | `/v1/scopes/{agent}/{user}/memories…` | any scope, admin keys |
/// | `POST /v1/chat`, `POST /v1/scopes/{agent}/{user}/chat` | a chat turn, SSE |
/// | `/mcp` | MCP over streamable HTTP (scoped keys) |
/// | `/ui/…` | the management page ([`crate::web`]), signed in with a key |
pub fn router(state: Arc<AppState>) -> Router {
    let limiter = KeyRateLimiter::new(&state.limits);
    let protected = Router::new()
        .route("/v1/agents", get(agents::list).post(agents::create))
        .route("/v1/agents/{name}", get(agents::get).put(agents::update))
        .route("/v1/chat", post(chat::chat))
        .route("/v1/scopes/{agent}/{user}/chat", post(chat::chat))
        .nest("/v1/memories", memory_routes())
        .nest("/v1/scopes/{agent}/{user}/memories", memory_routes())
        .nest_service("/mcp", mcp_service(&state))
        .fallback(no_route)
        .layer(middleware::from_fn(crate::access_log::log_request))
        .layer(middleware::from_fn_with_state(limiter, limit_rate))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            auth::authenticate,
        ));
    Router::new()
        .route("/health", get(health))
        .route("/openapi.json", get(openapi_json))
        .merge(protected)
        .merge(crate::web::router(Arc::clone(&state)))
        .layer(RequestBodyLimitLayer::new(state.limits.body_bytes))
        .layer(middleware::from_fn(explain_too_large))
        .with_state(state)
}
