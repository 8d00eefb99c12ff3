//! What the server writes to its logs at info level, in a test binary of its
//! own: a thread's tracing subscriber sees every event only while no other
//! test of the process registers and drops subscribers beside it (tracing's
//! callsite interest and level hint are process-wide).
#![cfg(test)]

#[allow(dead_code)]
mod common;

use serde_json::json;

use crate::common::TestServer;

/// A writer collecting the log lines of one test.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn info_logs_hold_neither_keys_nor_memory_text() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = TestServer::new().await;
    let key = server.key("a", "u");
    let secret = "the-password-is-hunter2";
    let (_, saved) = server
        .call(
            "POST",
            "/v1/memories",
            Some(&key),
            Some(json!({"content": secret})),
        )
        .await;
    let id = saved["memory"]["id"].as_i64().unwrap();
    server
        .call(
            "GET",
            &format!("/v1/memories/search?q={secret}"),
            Some(&key),
            None,
        )
        .await;
    server
        .call("GET", &format!("/v1/memories/{id}"), Some(&key), None)
        .await;
    server
        .call("GET", "/v1/memories", Some("agk_wrong"), None)
        .await;
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("/v1/memories/search"),
        "the requests are logged: {logs}"
    );
    assert!(!logs.contains(secret), "{logs}");
    assert!(!logs.contains(&key[4..]), "{logs}");
    assert!(!logs.contains("agk_wrong"), "{logs}");
}
