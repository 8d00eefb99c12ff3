#![cfg(test)]
//! `OpenAiProvider` configuration against a mock HTTP server: tool-call
//! message encoding, configuration errors, `from_env`, and the API key
//! staying out of `Debug` output and errors.
#![cfg(feature = "openai")]

use crate::openai_http_support;

use agcore_llm::types::{ChatMessage, ChatRequest, ToolCall};
use agcore_llm::{LlmError, LlmProvider, OpenAiConfig, OpenAiProvider};
use openai_http_support::{KEY, assert_no_key, fixture, provider, provider_with, request};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn sent_message(server: &MockServer, request: usize, message: usize) -> serde_json::Value {
    let requests = server.received_requests().await.unwrap();
    let body: serde_json::Value = requests[request].body_json().unwrap();
    body["messages"][message].clone()
}

#[tokio::test]
async fn tool_call_messages_get_empty_content_unless_disabled() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("openai_text.json"), "application/json"),
        )
        .mount(&server)
        .await;
    let history = vec![
        ChatMessage::user("weather?"),
        ChatMessage::assistant_tool_calls(vec![ToolCall::new("call_1", "get_weather", "{}")]),
        ChatMessage::tool("call_1", "sunny"),
    ];
    provider(&server)
        .chat(ChatRequest::new("m", history.clone()))
        .await
        .unwrap();
    assert_eq!(sent_message(&server, 0, 1).await["content"], "");
    provider_with(&server, |c| c.with_empty_content_for_tool_calls(false))
        .chat(ChatRequest::new("m", history))
        .await
        .unwrap();
    let second = sent_message(&server, 1, 1).await;
    assert!(second["content"].is_null() && second.get("content").is_some());
}

#[tokio::test]
async fn key_is_absent_from_debug_output() {
    let server = MockServer::start().await;
    let provider = provider(&server);
    assert_no_key(&format!("{provider:?}"));
    assert_no_key(&format!("{:?}", provider.config()));
    assert!(format!("{:?}", provider.config()).contains("***"));
    assert_eq!(provider.name(), "openai");
}

#[tokio::test]
async fn missing_model_and_bad_config_are_config_errors() {
    let server = MockServer::start().await;
    let provider = OpenAiProvider::new(OpenAiConfig::new(server.uri())).unwrap();
    assert!(matches!(
        provider.chat(request()).await,
        Err(LlmError::Config(_))
    ));
    assert!(matches!(
        OpenAiProvider::new(OpenAiConfig::new("localhost:8080")),
        Err(LlmError::Config(_))
    ));
    let bad_key =
        OpenAiProvider::new(OpenAiConfig::new(server.uri()).with_api_key("sk-bad\nkey-5ecret"));
    let err = bad_key.err().unwrap();
    assert_no_key(&err.to_string());
}

/// `from_env` reads the variables; checked in a child process so the test
/// never mutates this process's environment.
#[test]
fn from_env_reads_base_url_key_and_model() {
    if std::env::var_os("AGCORE_FROM_ENV_CHILD").is_some() {
        let provider = OpenAiProvider::from_env().unwrap();
        let config = provider.config();
        assert_eq!(config.base_url, "http://127.0.0.1:9/v1");
        assert!(config.has_api_key());
        assert_eq!(config.default_model.as_deref(), Some("child-model"));
        assert_no_key(&format!("{provider:?}"));
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new(exe)
        .args([
            "--exact",
            &test_name("from_env_reads_base_url_key_and_model"),
            "--nocapture",
        ])
        .env("AGCORE_FROM_ENV_CHILD", "1")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("OPENAI_API_KEY", KEY)
        .env("AGCORE_MODEL", "child-model")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}

/// `name`, a test of this file, as libtest lists it: the module path below the crate
/// root, then the function name (this file is a module of the `integration` binary).
fn test_name(name: &str) -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}
