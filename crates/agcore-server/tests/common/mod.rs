//! Helpers: a server over in-process memory, keys, requests.

use std::sync::Arc;

use agcore::memory::long_term::MemoryScope;
use agcore_server::{AppState, Grant, KeyStore, Limits};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// A server, its state and keys.
pub struct TestServer {
    pub state: Arc<AppState>,
    pub app: Router,
}

impl TestServer {
    /// A server over in-process memory with `limits`.
    pub async fn with_limits(limits: Limits) -> Self {
        let storage = agcore::memory::open("memory://").await.unwrap();
        let state = AppState::new(storage.long_term().unwrap(), KeyStore::in_memory())
            .with_storage(storage)
            .with_limits(limits);
        let state = Arc::new(state);
        Self {
            app: agcore_server::router(Arc::clone(&state)),
            state,
        }
    }

    /// A server with default limits.
    pub async fn new() -> Self {
        Self::with_limits(Limits::default()).await
    }

    /// A key for `agent` / `user`.
    pub fn key(&self, agent: &str, user: &str) -> String {
        let scope = MemoryScope::new(agent, user).unwrap();
        self.state.keys.create(&Grant::Scope(scope)).unwrap().0
    }

    /// An admin key.
    pub fn admin(&self) -> String {
        self.state.keys.create(&Grant::Admin).unwrap().0
    }

    /// Sends `method path` with `key` and a JSON `body`; the status and the JSON answer.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let raw = body.map(|b| b.to_string());
        self.call_raw(method, path, key, raw).await
    }

    /// As [`TestServer::call`] with a raw body.
    pub async fn call_raw(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<String>,
    ) -> (StatusCode, Value) {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(key) = key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let body = match body {
            Some(text) => {
                request = request.header("content-type", "application/json");
                Body::from(text)
            }
            None => Body::empty(),
        };
        let response = self
            .app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, value)
    }
}

impl TestServer {
    /// Sends an API request, or (for `/mcp`) a JSON-RPC message with the
    /// headers of a streamable HTTP MCP client.
    pub async fn call_mcp_or_api(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<String>,
    ) -> (StatusCode, Value) {
        if path != "/mcp" {
            return self.call_raw(method, path, Some(key), body).await;
        }
        let request = Request::builder()
            .method("POST")
            .uri("/mcp")
            .header("host", "127.0.0.1")
            .header("authorization", format!("Bearer {key}"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(Body::from(body.unwrap_or_default()))
            .unwrap();
        let response = self.app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, value)
    }
}

/// The folder of `@modelcontextprotocol/sdk` installed under `.services`
/// (`scripts/services.sh`), when it is there and `node` runs.
pub fn node_sdk() -> Option<String> {
    let services = std::env::var("AGCORE_SERVICES_DIR")
        .ok()
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.services");
            root.exists().then_some(root)
        })?;
    let sdk = services.join("mcp/node_modules/@modelcontextprotocol/sdk");
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .ok()?;
    (node.status.success() && sdk.join("package.json").exists())
        .then(|| sdk.canonicalize().ok())?
        .map(|p| p.display().to_string())
}
