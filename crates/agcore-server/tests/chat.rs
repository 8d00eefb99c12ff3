//! Chat turns in process with the mock provider: the memory context, the
//! agent's memory settings read at each turn, sessions, scopes and hostile
//! memory text.

use std::sync::Arc;

use agcore::agent::LongTermOptions;
use agcore::llm::{LlmProvider, MockProvider};
use agcore_server::{AppState, ChatRuntime, KeyStore};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::TestServer;

/// Events of an SSE body: (event name, JSON data).
pub async fn read_events<S, B, E>(body: S) -> Vec<(String, Value)>
where
    S: futures::Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display + std::fmt::Debug,
{
    use eventsource_stream::Eventsource;
    body.eventsource()
        .map(|event| {
            let event = event.unwrap();
            (event.event, serde_json::from_str(&event.data).unwrap())
        })
        .collect()
        .await
}

/// A server whose chat turns run on `provider` with `options`.
pub async fn chat_server(provider: Arc<dyn LlmProvider>, options: LongTermOptions) -> TestServer {
    let storage = agcore::memory::open("memory://").await.unwrap();
    let runtime = ChatRuntime::new(provider, "mock").with_long_term(options);
    let state = AppState::new(storage.long_term().unwrap(), KeyStore::in_memory())
        .with_storage(storage)
        .with_chat(runtime);
    let state = Arc::new(state);
    TestServer {
        app: agcore_server::router(Arc::clone(&state)),
        state,
    }
}

/// `POST path` with `body`: the status and, on success, the events (else
/// one `("http", error body)`).
pub async fn chat(
    server: &TestServer,
    path: &str,
    key: &str,
    body: Value,
) -> (StatusCode, Vec<(String, Value)>) {
    let request = Request::builder()
        .method("POST")
        .uri(path)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = server.app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    if !status.is_success() {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        return (status, vec![("http".into(), value)]);
    }
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    (
        status,
        read_events(response.into_body().into_data_stream()).await,
    )
}

/// The names of `events` in order, the memory-context data, the joined
/// deltas and the last event's data.
pub fn parts(events: &[(String, Value)]) -> (Vec<&str>, &Value, String, &Value) {
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    let deltas: String = events
        .iter()
        .filter(|(n, _)| n == "delta")
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    (names, &events[0].1, deltas, &events.last().unwrap().1)
}

fn system_prompt(provider: &MockProvider, request: usize) -> String {
    let requests = provider.requests();
    let first = &requests[request].messages[0];
    assert_eq!(first.role, agcore::types::Role::System);
    first.text()
}

pub async fn save(server: &TestServer, admin: &str, scope: &str, content: &str) -> i64 {
    let (status, saved) = server
        .call(
            "POST",
            &format!("/v1/scopes/{scope}/memories"),
            Some(admin),
            Some(json!({"content": content})),
        )
        .await;
    assert!(status.is_success(), "{saved}");
    saved["memory"]["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_turn_streams_the_recalled_memory_then_the_reply_and_the_session_continues() {
    let provider = Arc::new(
        MockProvider::new()
            .push_text("You prefer green tea.")
            .push_text("You asked which tea you prefer."),
    );
    let server = chat_server(provider.clone(), LongTermOptions::default()).await;
    let admin = server.admin();
    let id = save(
        &server,
        &admin,
        "helper/alice",
        "I prefer green tea in the morning",
    )
    .await;
    let key = server.key("helper", "alice");

    let body = json!({"message": "Which tea do I prefer?"});
    let (status, events) = chat(&server, "/v1/chat", &key, body).await;
    assert_eq!(status, StatusCode::OK);
    let (names, context, deltas, done) = parts(&events);
    assert_eq!(names.first(), Some(&"memory_context"), "{events:?}");
    assert_eq!(names.last(), Some(&"done"), "{events:?}");
    assert!(names.contains(&"delta"));
    let block = context["text"].as_str().unwrap();
    assert!(block.starts_with("<memory-context>"), "{block}");
    assert!(
        block.contains("> I prefer green tea in the morning"),
        "{block}"
    );
    assert_eq!(context["memory_ids"], json!([id]));
    assert_eq!(deltas, "You prefer green tea.");
    assert_eq!(done["reply"], "You prefer green tea.");
    assert!(system_prompt(&provider, 0).contains(block));
    let names: Vec<String> = provider.requests()[0]
        .tools
        .iter()
        .map(|t| t.function.name.clone())
        .collect();
    assert!(names.contains(&"memory_save".to_owned()), "{names:?}");

    let session = done["session"].as_str().unwrap().to_owned();
    let body = json!({"message": "What did I just ask?", "session": session});
    let (_, events) = chat(&server, "/v1/chat", &key, body).await;
    let (_, _, _, done) = parts(&events);
    assert_eq!(done["reply"], "You asked which tea you prefer.");
    assert_eq!(done["session"], session.as_str());
    let second = &provider.requests()[1].messages;
    assert!(
        second.iter().any(|m| m.text() == "Which tea do I prefer?"),
        "the second turn sees the first: {second:?}"
    );
}

#[tokio::test]
async fn an_agent_updated_to_memory_off_gets_no_context_no_tools_and_no_extraction() {
    let provider = Arc::new(
        MockProvider::new()
            .push_text("Noted.")
            .push_text(r#"{"facts": []}"#)
            .push_text("Without memory."),
    );
    let options = LongTermOptions::default().extract_every(1);
    let server = chat_server(provider.clone(), options).await;
    let admin = server.admin();
    save(&server, &admin, "helper/alice", "I prefer green tea").await;
    let agent = json!({"name": "helper", "instructions": "Answer in one line."});
    let (status, _) = server
        .call("POST", "/v1/agents", Some(&admin), Some(agent))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let key = server.key("helper", "alice");

    let body = json!({"message": "Which green tea do I like?", "session": "s1"});
    let (_, events) = chat(&server, "/v1/chat", &key, body).await;
    assert!(events[0].1["text"].as_str().unwrap().contains("green tea"));
    assert!(system_prompt(&provider, 0).contains("Answer in one line."));
    server.state.finish().await;
    let after_first = provider.request_count();
    assert_eq!(after_first, 2, "memory on: the turn was extracted");

    let off = json!({"name": "helper", "instructions": "Answer in one line.",
                     "memory": {"enabled": false}});
    let (status, _) = server
        .call("PUT", "/v1/agents/helper", Some(&admin), Some(off))
        .await;
    assert_eq!(status, StatusCode::OK);
    let body = json!({"message": "Which green tea do I like?", "session": "s1"});
    let (_, events) = chat(&server, "/v1/chat", &key, body).await;
    let (names, context, _, done) = parts(&events);
    assert_eq!(names.first(), Some(&"memory_context"));
    assert_eq!(context, &json!({"text": "", "memory_ids": []}));
    assert_eq!(done["reply"], "Without memory.");
    let request = &provider.requests()[2];
    let system = request.messages[0].text();
    assert!(!system.contains("<memory-context>"), "{system}");
    assert!(
        request.tools.is_empty(),
        "no memory tools: {:?}",
        request.tools
    );
    assert!(
        request.messages.iter().any(|m| m.text() == "Noted."),
        "the history is kept across the settings change"
    );
    server.state.finish().await;
    assert_eq!(provider.request_count(), after_first + 1, "no extraction");
}

#[tokio::test]
async fn hostile_memory_text_stays_quoted_in_the_memory_context() {
    let provider = Arc::new(MockProvider::new().push_text("ok"));
    let server = chat_server(provider.clone(), LongTermOptions::default()).await;
    let admin = server.admin();
    let corpus = agcore::prompt::untrusted::hostile_corpus();
    for (n, attack) in corpus.iter().enumerate() {
        let name: String = attack.chars().take(60).collect();
        let body = json!({"content": attack, "name": format!("{n} {name}")});
        let (status, saved) = server
            .call(
                "POST",
                "/v1/scopes/helper/alice/memories",
                Some(&admin),
                Some(body),
            )
            .await;
        assert!(status.is_success(), "{saved}");
    }
    let agent = json!({"name": "helper", "memory": {"prefetch_limit": 50}});
    server
        .call("POST", "/v1/agents", Some(&admin), Some(agent))
        .await;
    let key = server.key("helper", "alice");
    let body = json!({"message": "green tea"});
    let (_, events) = chat(&server, "/v1/chat", &key, body).await;
    let block = events[0].1["text"].as_str().unwrap();
    assert!(
        !events[0].1["memory_ids"].as_array().unwrap().is_empty(),
        "{block}"
    );
    assert!(block.starts_with("<memory-context>\n"), "{block}");
    assert!(block.ends_with("\n</memory-context>"), "{block}");
    assert_eq!(block.matches("<memory-context>").count(), 1, "{block}");
    assert_eq!(block.matches("</memory-context>").count(), 1, "{block}");
    let bad = agcore::prompt::untrusted::hostile_lines();
    for line in block.lines() {
        let start = line.trim_start();
        if ["<memory-context>", "</memory-context>"].contains(&start) {
            continue;
        }
        for b in &bad {
            assert!(
                !start.starts_with(b.as_str()),
                "line {line:?} starts with {b:?}"
            );
        }
    }
    let system = system_prompt(&provider, 0);
    assert_eq!(system.matches("</memory-context>").count(), 1, "{system}");
}

#[tokio::test]
async fn without_an_endpoint_chat_answers_503_and_bad_bodies_400() {
    let server = TestServer::new().await;
    let key = server.key("helper", "alice");
    let (status, answer) = chat(&server, "/v1/chat", &key, json!({"message": "hi"})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        answer[0].1["error"]
            .as_str()
            .unwrap()
            .contains("OPENAI_BASE_URL")
    );

    let provider = Arc::new(MockProvider::new());
    let server = chat_server(provider.clone(), LongTermOptions::default()).await;
    let key = server.key("helper", "alice");
    for body in [
        json!({"message": "  "}),
        json!({"message": "hi", "session": "../x"}),
    ] {
        let (status, _) = chat(&server, "/v1/chat", &key, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    assert_eq!(provider.request_count(), 0);
}
