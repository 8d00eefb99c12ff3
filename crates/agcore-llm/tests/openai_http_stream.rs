#![cfg(test)]
//! `OpenAiProvider` streaming against a mock HTTP server: stream fields,
//! folding to a response, truncated streams and error statuses.
#![cfg(feature = "openai")]

use crate::openai_http_support;

use agcore_llm::{LlmError, LlmProvider, fold_stream};
use openai_http_support::{fixture, provider, provider_with, request};
use wiremock::matchers::{body_partial_json, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn streaming_sets_stream_fields_and_folds_to_the_response() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_partial_json(
            serde_json::json!({"stream": true, "stream_options": {"include_usage": true}}),
        ))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("openai_tool_calls.sse"), "text/event-stream"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let stream = provider(&server).chat_stream(request()).await.unwrap();
    let folded = fold_stream(stream).await.unwrap();
    let expected: agcore_llm::types::ChatResponse =
        serde_json::from_slice(&fixture("openai_tool_calls.json")).unwrap();
    assert_eq!(
        folded.message().unwrap().tool_calls,
        expected.message().unwrap().tool_calls
    );
    assert_eq!(folded.usage, expected.usage);
    assert_eq!(folded.id, expected.id);
}

#[tokio::test]
async fn streaming_without_usage_option_and_with_a_json_answer() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("deepseek_reasoning.json"), "application/json"),
        )
        .mount(&server)
        .await;
    let provider = provider_with(&server, |c| c.with_stream_include_usage(false));
    let folded = fold_stream(provider.chat_stream(request()).await.unwrap())
        .await
        .unwrap();
    assert_eq!(folded.text(), "9.8 更大。");
    assert!(
        folded
            .message()
            .unwrap()
            .reasoning_content
            .as_deref()
            .unwrap()
            .starts_with("嗯")
    );
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["stream"], true);
    assert!(sent.get("stream_options").is_none(), "{sent}");
}

#[tokio::test]
async fn truncated_sse_over_http_is_an_error() {
    let full = String::from_utf8(fixture("openai_text.sse")).unwrap();
    let cut = full.find("\"finish_reason\":\"stop\"").unwrap();
    let truncated = full[..full[..cut].rfind("data: ").unwrap()].to_owned();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(truncated, "text/event-stream"))
        .mount(&server)
        .await;
    let result = fold_stream(provider(&server).chat_stream(request()).await.unwrap()).await;
    assert!(matches!(result, Err(LlmError::Stream(m)) if m.contains("finish reason")));
}

#[tokio::test]
async fn streaming_error_status_fails_before_the_stream() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(401).set_body_string(r#"{"error":{"message":"no key"}}"#),
        )
        .mount(&server)
        .await;
    let err = provider(&server)
        .chat_stream(request())
        .await
        .err()
        .unwrap();
    assert!(matches!(err, LlmError::Authentication { .. }));
}
