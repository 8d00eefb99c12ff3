//! A chat turn over a real socket against the OpenAI-compatible llama.cpp
//! server of `.services` (`AGCORE_TEST_OPENAI_BASE_URL`,
//! `AGCORE_TEST_OPENAI_MODEL`), read with a real SSE client.

use std::sync::Arc;

use agcore::agent::LongTermOptions;
use agcore::llm::{OpenAiConfig, OpenAiProvider};
use serde_json::json;

use crate::chat::{chat_server, read_events};
use crate::mcp::spawn;

/// The test server's URL and model, or `None` (skipped) when not set;
/// required under `AGCORE_REQUIRE_SERVICES` / `CI`.
fn llama() -> Option<(String, String)> {
    let base = std::env::var("AGCORE_TEST_OPENAI_BASE_URL")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let Some(base) = base else {
        assert!(
            std::env::var("AGCORE_REQUIRE_SERVICES").is_err() && std::env::var("CI").is_err(),
            "AGCORE_TEST_OPENAI_BASE_URL is not set but the servers are required \
             (run scripts/services.sh start)"
        );
        eprintln!("skipped: set AGCORE_TEST_OPENAI_BASE_URL (scripts/services.sh start)");
        return None;
    };
    let model = std::env::var("AGCORE_TEST_OPENAI_MODEL").unwrap_or_else(|_| "smollm2".into());
    Some((base, model))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_streams_over_a_socket_from_the_real_model() {
    let Some((base, model)) = llama() else {
        return;
    };
    let provider =
        OpenAiProvider::new(OpenAiConfig::new(base).with_default_model(model.clone())).unwrap();
    // Extraction off: the test reads the turn, not the memory work after it.
    let options = LongTermOptions::default().extraction(false);
    let server = chat_server(Arc::new(provider), options).await;
    let admin = server.admin();
    let (status, _) = server
        .call(
            "POST",
            "/v1/scopes/helper/alice/memories",
            Some(&admin),
            Some(json!({"content": "Alice's favourite colour is teal"})),
        )
        .await;
    assert!(status.is_success());
    let key = server.key("helper", "alice");
    let (addr, stop, task) = spawn(&server).await;

    let response = reqwest::Client::new()
        .post(format!("http://{addr}/v1/chat"))
        .bearer_auth(&key)
        .json(&json!({"message": "What is my favourite colour? Answer in one word."}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    let events = read_events(response.bytes_stream()).await;
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"memory_context"), "{events:?}");
    assert_eq!(names.last(), Some(&"done"), "{events:?}");
    assert!(
        events[0].1["text"].as_str().unwrap().contains("teal"),
        "{events:?}"
    );
    let deltas: String = events
        .iter()
        .filter(|(n, _)| n == "delta")
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    let done = &events.last().unwrap().1;
    assert!(!deltas.trim().is_empty(), "{events:?}");
    assert_eq!(done["reply"].as_str().unwrap(), deltas);
    assert!(done["session"].as_str().is_some_and(|s| !s.is_empty()));

    stop.send(()).unwrap();
    task.await.unwrap();
}
