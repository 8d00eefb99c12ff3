#![cfg(test)]
//! `OpenAiProvider` against a mock HTTP server: statuses, headers, timeouts,
//! bodies, streaming, retries, and the API key staying secret.
#![cfg(feature = "openai")]

use std::time::Duration;

use agcore_llm::types::{ChatMessage, ChatRequest, FinishReason, ToolCall};
use agcore_llm::{
    Jitter, LlmError, LlmProvider, OpenAiConfig, OpenAiProvider, RetryPolicy, fold_stream, retry,
};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-test-5ecret-Key-0123456789";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn provider(server: &MockServer) -> OpenAiProvider {
    provider_with(server, |c| c)
}

fn provider_with(
    server: &MockServer,
    f: impl FnOnce(OpenAiConfig) -> OpenAiConfig,
) -> OpenAiProvider {
    let config = OpenAiConfig::new(format!("{}/v1/", server.uri()))
        .with_api_key(KEY)
        .with_default_model("gpt-4o-mini");
    OpenAiProvider::new(f(config)).unwrap()
}

fn request() -> ChatRequest {
    ChatRequest::new("", vec![ChatMessage::user("Hi")])
}

async fn respond(
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

fn assert_no_key(text: &str) {
    assert!(!text.contains(KEY), "key leaked in: {text}");
    assert!(!text.contains("5ecret"), "key leaked in: {text}");
}

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
            "from_env_reads_base_url_key_and_model",
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
