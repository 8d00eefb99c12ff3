//! `agcore chat` end to end: a wiremock OpenAI-compatible server (streamed
//! replies, a `memory_save` tool call, fact extraction at exit) and the real
//! local server when configured. Endpoint settings and the one-sentence
//! failures without a server are in `chat_setup.rs`.
#![cfg(test)]
#![allow(clippy::print_stdout)]

use crate::cli_support;

use cli_support::Home;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

/// Matches requests whose body contains (or lacks) `needle`.
struct BodyHas(&'static str, bool);

impl Match for BodyHas {
    fn matches(&self, request: &Request) -> bool {
        String::from_utf8_lossy(&request.body).contains(self.0) == self.1
    }
}

fn sse(chunks: &[Value]) -> String {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "mock",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    })
}

const SAVED: &str = "Prefers green tea in the morning";
const EXTRACTED: &str = "Works night shifts at the hospital";

async fn mock_server() -> MockServer {
    let server = MockServer::start().await;
    let arguments =
        json!({"action": "create", "name": "tea", "type": "user", "content": SAVED}).to_string();
    // Turn 1, first round: the model asks to save a memory.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(BodyHas("\"stream\":true", true))
        .and(BodyHas("\"role\":\"tool\"", false))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            sse(&[
                chunk(json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "memory_save", "arguments": ""}}]}), None),
                chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}), None),
                chunk(json!({}), Some("tool_calls")),
            ]),
            "text/event-stream",
        ))
        .mount(&server)
        .await;
    // Second round: the streamed answer.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(BodyHas("\"stream\":true", true))
        .and(BodyHas("\"role\":\"tool\"", true))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            sse(&[
                chunk(json!({"role": "assistant", "content": "Noted: "}), None),
                chunk(json!({"content": "green tea, 早上好."}), None),
                chunk(json!({}), Some("stop")),
            ]),
            "text/event-stream",
        ))
        .mount(&server)
        .await;
    // Fact extraction at exit (not streamed).
    let facts =
        json!({"facts": [{"content": EXTRACTED, "type": "user", "confidence": 0.9}]}).to_string();
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(BodyHas("\"stream\":true", false))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "mock",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": facts}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
        })))
        .mount(&server)
        .await;
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_streams_the_reply_and_the_tool_call_lands_in_the_db() {
    let server = mock_server().await;
    let home = Home::new();
    let mut cmd = home.agcore();
    cmd.args(["chat", "--user", "alice", "--model", "mock", "--db"])
        .arg(home.db())
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .write_stdin("I drink green tea every morning\n/memory\n/exit\nnot sent\n");
    let output = tokio::task::spawn_blocking(move || cmd.assert().success().get_output().clone())
        .await
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stdout.starts_with("Noted: green tea, 早上好.\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(SAVED),
        "/memory lists the saved memory: {stdout}"
    );
    assert!(stderr.contains("[memory_save done]"), "{stderr}");

    // The tool call and the extracted fact are in the database.
    let listed = home.memory_ok(&["list", "--json"]);
    let entries: Vec<Value> = serde_json::from_str(&listed).unwrap();
    let contents: Vec<&str> = entries
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert!(contents.contains(&SAVED), "{listed}");
    assert!(
        contents.contains(&EXTRACTED),
        "extraction ran at exit: {listed}"
    );

    // The requests: tools offered, the user scope's text sent, `/exit` ended the session.
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3, "two rounds and one extraction");
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["model"], "mock");
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"memory_save") && tools.contains(&"memory_recall"),
        "{tools:?}"
    );
    assert!(!String::from_utf8_lossy(&requests[2].body).contains("not sent"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_are_prefetched_after_the_first_round_and_reset_starts_over() {
    let server = mock_server().await;
    let home = Home::new();
    home.memory_ok(&["add", "Alice is allergic to peanuts", "--type", "user"]);
    // The endpoint from the user's agcore.toml; `[memory_agent] enabled = false`
    // turns extraction off.
    std::fs::create_dir_all(home.path("config/agcore")).unwrap();
    std::fs::write(
        home.path("config/agcore/agcore.toml"),
        format!(
            "[llm]\nbase_url = \"{}/v1\"\nmodel = \"mock\"\n\n[memory_agent]\nenabled = false\n",
            server.uri()
        ),
    )
    .unwrap();
    let mut cmd = home.agcore();
    cmd.args(["chat", "--user", "alice", "--db"])
        .arg(home.db())
        .write_stdin("hello there\n/reset\nhello again\nwhat about peanuts?\n");
    tokio::task::spawn_blocking(move || cmd.assert().success())
        .await
        .unwrap();
    let requests = server.received_requests().await.unwrap();
    let bodies: Vec<Value> = requests
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    // Each session's first turn takes two rounds (tool call, answer); the mock answers
    // a request whose history already holds a tool result directly: 2 + 2 + 1, no extraction.
    assert_eq!(bodies.len(), 5);
    let system = |b: &Value| {
        b["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // First rounds of both sessions inject nothing; the second turn of the new session does.
    assert!(!system(&bodies[0]).contains("allergic"));
    assert!(!system(&bodies[2]).contains("allergic"));
    assert!(
        system(&bodies[4]).contains("Alice is allergic to peanuts"),
        "{}",
        system(&bodies[4])
    );
    // After /reset the history starts over.
    let history = bodies[2]["messages"].to_string();
    assert!(
        history.contains("hello again") && !history.contains("hello there"),
        "{history}"
    );
}
#[test]
fn chat_against_the_real_local_server() {
    let vars = (
        std::env::var("AGCORE_TEST_OPENAI_BASE_URL"),
        std::env::var("AGCORE_TEST_OPENAI_MODEL"),
    );
    let (Ok(url), Ok(model)) = vars else {
        if std::env::var("AGCORE_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!(
                "AGCORE_REQUIRE_SERVICES=1 but AGCORE_TEST_OPENAI_BASE_URL / AGCORE_TEST_OPENAI_MODEL are not set"
            );
        }
        println!("skipped: set AGCORE_TEST_OPENAI_BASE_URL (scripts/services.sh start)");
        return;
    };
    let home = Home::new();
    let config = home.path("agcore.toml");
    // A tiny model: short replies, no extraction (protocol only).
    std::fs::write(
        &config,
        "[llm]\nmax_tokens = 48\n\n[memory_agent]\nenabled = false\n",
    )
    .unwrap();
    let out = home
        .agcore()
        .args([
            "chat",
            "--user",
            "alice",
            "--model",
            &model,
            "--config",
            config.to_str().unwrap(),
            "--db",
        ])
        .arg(home.db())
        .env("OPENAI_BASE_URL", &url)
        .write_stdin("Say hello in one short sentence.\n/memory\n/exit\n")
        .timeout(std::time::Duration::from_secs(240))
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("error:"), "{stderr}");
    assert!(
        stdout.lines().count() >= 2,
        "a streamed reply, then /memory: {stdout}"
    );
}
