//! Helpers shared by the `OpenAiProvider` mock-server tests.
#![cfg(test)]
#![allow(dead_code)]

use agcore_llm::types::{ChatMessage, ChatRequest};
use agcore_llm::{LlmError, LlmProvider, OpenAiConfig, OpenAiProvider};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The API key the providers send; it must never appear in any output.
pub const KEY: &str = "sk-test-5ecret-Key-0123456789";

/// The bytes of `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A provider for `server` with [`KEY`] and model `gpt-4o-mini`.
pub fn provider(server: &MockServer) -> OpenAiProvider {
    provider_with(server, |c| c)
}

/// As [`provider`], with `f` applied to the configuration.
pub fn provider_with(
    server: &MockServer,
    f: impl FnOnce(OpenAiConfig) -> OpenAiConfig,
) -> OpenAiProvider {
    let config = OpenAiConfig::new(format!("{}/v1/", server.uri()))
        .with_api_key(KEY)
        .with_default_model("gpt-4o-mini");
    OpenAiProvider::new(f(config)).unwrap()
}

/// A one-message chat request without a model.
pub fn request() -> ChatRequest {
    ChatRequest::new("", vec![ChatMessage::user("Hi")])
}

/// The result of one chat call to a server answering `template`.
pub async fn respond(
    template: ResponseTemplate,
) -> (
    MockServer,
    Result<agcore_llm::types::ChatResponse, LlmError>,
) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(template)
        .mount(&server)
        .await;
    let result = provider(&server).chat(request()).await;
    (server, result)
}

/// Fails when `text` shows the key or a piece of it.
pub fn assert_no_key(text: &str) {
    assert!(!text.contains(KEY), "key leaked in: {text}");
    assert!(!text.contains("5ecret"), "key leaked in: {text}");
}
