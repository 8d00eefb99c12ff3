//! The OpenAPI document: served without a key, equal to `docs/openapi.json`
//! (`UPDATE_OPENAPI=1` rewrites the file), and in step with the router —
//! every documented operation is routed and every routed one documented.

use axum::http::StatusCode;
use serde_json::Value;

use crate::common::TestServer;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

fn document() -> Value {
    serde_json::to_value(agcore_server::openapi()).unwrap()
}

fn committed_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

/// `path` with sample values for its parameters.
fn concrete(path: &str) -> String {
    path.replace("{agent}", "a")
        .replace("{user}", "u")
        .replace("{id}", "1")
        .replace("{name}", "a")
}

/// Sends `method path` with the key the route takes; the status and answer.
async fn probe(server: &TestServer, method: &str, path: &str) -> (StatusCode, Value) {
    let key = if path.starts_with("/v1/scopes/") || path.starts_with("/v1/agents") {
        server.admin()
    } else {
        server.key("a", "u")
    };
    let body = ["POST", "PUT", "PATCH"]
        .contains(&method)
        .then(|| "{}".to_owned());
    let path = concrete(path);
    server.call_mcp_or_api(method, &path, &key, body).await
}

fn is_fallback(status: StatusCode, answer: &Value) -> bool {
    status == StatusCode::METHOD_NOT_ALLOWED
        || (status == StatusCode::NOT_FOUND && answer.to_string().contains("no such route"))
}

#[tokio::test]
async fn the_document_equals_docs_openapi_json() {
    let generated = serde_json::to_string_pretty(&document()).unwrap() + "\n";
    if std::env::var("UPDATE_OPENAPI").as_deref() == Ok("1") {
        std::fs::write(committed_path(), &generated).unwrap();
    }
    let committed = std::fs::read_to_string(committed_path()).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/openapi.json differs from the routes' document: run \
         `UPDATE_OPENAPI=1 cargo test -p agcore-server --test integration openapi` and commit it"
    );
    let doc = document();
    assert_eq!(doc["openapi"].as_str().unwrap().get(..3), Some("3.1"));
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    for schema in [
        "ChatRequest",
        "ChatEvent",
        "AgentRecord",
        "NewMemoryBody",
        "ErrorBody",
    ] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema}");
    }
}

#[tokio::test]
async fn the_document_is_served_without_a_key() {
    let server = TestServer::new().await;
    let (status, served) = server.call("GET", "/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(served, document());
}

#[tokio::test]
async fn every_documented_operation_is_routed_and_every_other_method_is_not() {
    let server = TestServer::new().await;
    let doc = document();
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.contains_key("/v1/chat") && paths.contains_key("/v1/scopes/{agent}/{user}/chat"));
    let mut operations = 0;
    for (path, item) in paths {
        for method in METHODS {
            let documented = item.get(method.to_lowercase()).is_some();
            if path == "/mcp" && !documented {
                // The MCP service answers the methods of the MCP transport itself.
                continue;
            }
            let (status, answer) = probe(&server, method, path).await;
            if documented {
                operations += 1;
                assert!(
                    !is_fallback(status, &answer),
                    "{method} {path} is documented but not routed: {status} {answer}"
                );
            } else {
                assert!(
                    is_fallback(status, &answer),
                    "{method} {path} is routed but not documented: {status} {answer}"
                );
            }
        }
    }
    assert!(operations >= 30, "{operations}");
}

/// Every path the router source registers, nested ones under both prefixes.
fn routed_paths() -> Vec<String> {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/routes/router.rs"),
    )
    .unwrap();
    let scope_start = source.find("fn memory_routes").unwrap();
    let scope_end = scope_start + source[scope_start..].find("\n}\n").unwrap();
    let mut paths = Vec::new();
    for marker in [".route(", ".nest_service("] {
        for (at, _) in source.match_indices(marker) {
            let rest = source[at + marker.len()..].trim_start();
            let rest = rest.strip_prefix('"').expect("a route's path is a literal");
            let path = &rest[..rest.find('"').unwrap()];
            if (scope_start..scope_end).contains(&at) {
                for prefix in ["/v1/memories", "/v1/scopes/{agent}/{user}/memories"] {
                    let tail = if path == "/" { "" } else { path };
                    paths.push(format!("{prefix}{tail}"));
                }
            } else {
                paths.push(path.to_owned());
            }
        }
    }
    paths
}

#[test]
fn every_path_the_router_registers_is_documented() {
    let doc = document();
    let routed = routed_paths();
    assert!(routed.len() >= 20, "{routed:?}");
    for path in &routed {
        assert!(
            doc["paths"].get(path).is_some(),
            "{path} is routed but not documented"
        );
    }
    let documented = doc["paths"].as_object().unwrap().len();
    assert_eq!(
        documented,
        routed.len(),
        "documented paths that are not registered"
    );
}
