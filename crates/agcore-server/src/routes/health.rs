//! `GET /health`: liveness, without a key.

use axum::Json;
use serde_json::json;

/// `GET /health`: `{"status":"ok","version":"…"}`, without a key.
#[utoipa::path(get, path = "/health", tag = "server", security(()),
    responses((status = 200, description = "`{\"status\": \"ok\", \"version\": \"…\"}`", body = serde_json::Value)))]
pub async fn health() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}
