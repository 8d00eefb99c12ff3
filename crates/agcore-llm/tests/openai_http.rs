#![cfg(test)]
//! `OpenAiProvider` against a mock HTTP server: statuses, headers, timeouts,
//! bodies and retries. Streaming is in `openai_http_stream.rs`, configuration
//! and the API key staying secret in `openai_http_config.rs`.
#![cfg(feature = "openai")]

use crate::openai_http_support;

use std::time::Duration;

use agcore_llm::types::FinishReason;
use agcore_llm::{Jitter, LlmError, LlmProvider, OpenAiConfig, OpenAiProvider, RetryPolicy, retry};
use openai_http_support::{KEY, assert_no_key, fixture, provider, provider_with, request, respond};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn ok_200_sends_key_model_and_decodes_the_response() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .and(header("x-team", "blue"))
        .and(body_partial_json(serde_json::json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Hi"}]
        })))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("openai_text.json"), "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let provider = provider_with(&server, |c| c.with_header("x-team", "blue"));
    let response = provider.chat(request()).await.unwrap();
    assert_eq!(response.text(), "Hello! 你好，世界。 How can I help 🙂?");
    assert_eq!(response.usage.unwrap().total_tokens, 31);
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert!(
        sent.get("stream").is_none(),
        "non-streaming call must not send stream: {sent}"
    );
}

#[tokio::test]
async fn status_400_is_invalid_request_and_context_overflow_is_recognised() {
    let (_s, result) = respond(ResponseTemplate::new(400).set_body_string(
        r#"{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}"#,
    ))
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, LlmError::InvalidRequest { message } if message.contains("temperature")),
        "{err:?}"
    );
    assert!(!err.is_recoverable());

    let (_s, result) = respond(ResponseTemplate::new(400).set_body_string(
        r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
    ))
    .await;
    assert!(matches!(
        result,
        Err(LlmError::ContextLengthExceeded { .. })
    ));

    let (_s, result) = respond(ResponseTemplate::new(404).set_body_string(
        r#"{"error":{"message":"The model `gpt-5-nano` does not exist","type":"invalid_request_error","code":"model_not_found"}}"#,
    ))
    .await;
    assert!(
        matches!(result, Err(LlmError::InvalidRequest { message }) if message.contains("model_not_found"))
    );
}

#[tokio::test]
async fn status_401_is_authentication_and_never_shows_the_key() {
    // This server echoes the rejected key in its message.
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let (_s, result) = respond(ResponseTemplate::new(401).set_body_string(body)).await;
    let err = result.unwrap_err();
    assert!(matches!(err, LlmError::Authentication { .. }), "{err:?}");
    assert_no_key(&err.to_string());
    assert_no_key(&format!("{err:?}"));
}

#[tokio::test]
async fn status_429_carries_retry_after() {
    let (_s, result) = respond(
        ResponseTemplate::new(429)
            .insert_header("retry-after", "3")
            .set_body_string(r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#),
    )
    .await;
    let err = result.unwrap_err();
    assert_eq!(err.retry_after(), Some(Duration::from_secs(3)));
    assert!(err.is_recoverable());

    let (_s, result) = respond(
        ResponseTemplate::new(429)
            .insert_header("retry-after", "20")
            .insert_header("retry-after-ms", "1500"),
    )
    .await;
    assert_eq!(
        result.unwrap_err().retry_after(),
        Some(Duration::from_millis(1500))
    );

    let date = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(30));
    let (_s, result) =
        respond(ResponseTemplate::new(429).insert_header("retry-after", date.as_str())).await;
    let after = result.unwrap_err().retry_after().unwrap();
    assert!(
        after > Duration::from_secs(25) && after <= Duration::from_secs(30),
        "{after:?}"
    );
}

#[tokio::test]
async fn status_500_then_success_through_the_retry_helper() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream exploded"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("openai_text.json"), "application/json"),
        )
        .with_priority(2)
        .mount(&server)
        .await;
    let provider = provider(&server);
    let policy = RetryPolicy::new(3)
        .with_base_delay(Duration::from_millis(10))
        .with_jitter(Jitter::None);
    let mut retries = Vec::new();
    let response = retry(
        &policy,
        |_| provider.chat(request()),
        |n, error, delay| retries.push((n, error.to_string(), delay)),
    )
    .await
    .unwrap();
    assert_eq!(response.finish_reason(), Some(&FinishReason::Stop));
    assert_eq!(retries.len(), 1);
    assert!(retries[0].1.contains("HTTP 500") && retries[0].1.contains("upstream exploded"));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn other_statuses_keep_a_short_body_excerpt() {
    let long = "é".repeat(2000);
    let (_s, result) = respond(ResponseTemplate::new(418).set_body_string(long)).await;
    match result.unwrap_err() {
        LlmError::Http { status, body } => {
            assert_eq!(status, 418);
            assert!(body.len() <= 503, "{} bytes", body.len());
            assert!(body.starts_with("éé"));
        }
        other => panic!("{other:?}"),
    }
    let (_s, result) =
        respond(ResponseTemplate::new(503).set_body_string("<html>Service Unavailable</html>"))
            .await;
    assert!(matches!(result, Err(LlmError::Server { status: 503, .. })));
}

#[tokio::test]
async fn slow_server_times_out() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("openai_text.json"), "application/json")
                .set_delay(Duration::from_secs(5)),
        )
        .mount(&server)
        .await;
    let provider = provider_with(&server, |c| {
        c.with_request_timeout(Duration::from_millis(200))
    });
    let err = provider.chat(request()).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Timeout(d) if d == Duration::from_millis(200)),
        "{err:?}"
    );
    assert!(err.is_recoverable());
    let err = provider.chat_stream(request()).await.err().unwrap();
    assert!(matches!(err, LlmError::Timeout(_)), "{err:?}");
}

#[tokio::test]
async fn refused_connection_is_a_connection_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let provider = OpenAiProvider::new(
        OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"))
            .with_api_key(KEY)
            .with_default_model("m"),
    )
    .unwrap();
    let err = provider.chat(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::Connection(_)), "{err:?}");
    assert_no_key(&format!("{err} {err:?}"));
}

#[tokio::test]
async fn malformed_json_is_a_decode_error() {
    let (_s, result) = respond(
        ResponseTemplate::new(200).set_body_raw(r#"{"id":"x","choices":[{"#, "application/json"),
    )
    .await;
    assert!(
        matches!(result, Err(LlmError::Decode { message }) if message.contains(r#"{"id":"x""#))
    );
    let (_s, result) =
        respond(ResponseTemplate::new(200).set_body_raw(r#"{"id":"x"}"#, "application/json")).await;
    assert!(matches!(result, Err(LlmError::Decode { .. })));
}
