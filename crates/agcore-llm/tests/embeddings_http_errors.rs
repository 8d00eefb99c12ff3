#![cfg(test)]
//! `OpenAiEmbedder` against a mock HTTP server: error mapping, shape checks
//! (`Decode`), retries running out, and the API key staying secret.
#![cfg(feature = "openai")]

use crate::embedding_support;

use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingModel, InputKind, OpenAiEmbedder, OpenAiEmbeddingConfig};
use embedding_support::{KEY, config, raw_answer, texts};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn unauthorized_is_authentication_and_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({
            "error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error", "code": "invalid_api_key"}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(config(&server)).unwrap();
    let error = embedder
        .embed(&texts(1), InputKind::Query)
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::Authentication { .. }),
        "{error:?}"
    );
    assert!(!error.is_recoverable());
    assert!(!error.to_string().contains(KEY), "{error}");
    assert!(!format!("{error:?}").contains(KEY));
    assert!(!format!("{embedder:?}").contains(KEY));
    assert!(!format!("{:?}", embedder.config()).contains(KEY));
}

#[tokio::test]
async fn wrong_count_is_a_decode_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(raw_answer(json!([{"index": 0, "embedding": [1.0, 2.0]}])))
        .expect(1)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(config(&server)).unwrap();
    let error = embedder
        .embed(&texts(2), InputKind::Document)
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Decode { .. }), "{error:?}");
    assert!(!error.is_recoverable());
}

#[tokio::test]
async fn wrong_dimensions_are_a_decode_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(raw_answer(json!([
            {"index": 0, "embedding": [1.0, 2.0, 3.0]},
            {"index": 1, "embedding": [1.0, 2.0, 3.0]}
        ])))
        .mount(&server)
        .await;
    let known = OpenAiEmbedder::new(config(&server).with_dimensions(4)).unwrap();
    let error = known
        .embed(&texts(2), InputKind::Document)
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Decode { .. }), "{error:?}");
    assert_eq!(known.dimensions(), 4);

    // Learned from the first answer, a later different length is refused.
    let server2 = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(raw_answer(json!([{"index": 0, "embedding": [1.0, 2.0]}])))
        .up_to_n_times(1)
        .mount(&server2)
        .await;
    Mock::given(method("POST"))
        .respond_with(raw_answer(
            json!([{"index": 0, "embedding": [1.0, 2.0, 3.0]}]),
        ))
        .mount(&server2)
        .await;
    let learning = OpenAiEmbedder::new(config(&server2)).unwrap();
    assert_eq!(learning.probe().await.unwrap(), 2);
    assert_eq!(learning.dimensions(), 2);
    let error = learning
        .embed(&texts(1), InputKind::Query)
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Decode { .. }), "{error:?}");
}

#[tokio::test]
async fn server_errors_exhaust_retries() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("overloaded"))
        .expect(3)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(config(&server)).unwrap();
    let error = embedder
        .embed(&texts(1), InputKind::Document)
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::Server { status: 503, .. }),
        "{error:?}"
    );
    assert!(error.is_recoverable());
}

#[tokio::test]
async fn bad_base_url_and_model_are_config_errors() {
    assert!(matches!(
        OpenAiEmbedder::new(OpenAiEmbeddingConfig::new("localhost:8000", "m")),
        Err(LlmError::Config(_))
    ));
    assert!(matches!(
        OpenAiEmbedder::new(OpenAiEmbeddingConfig::new("http://h/v1", " ")),
        Err(LlmError::Config(_))
    ));
    let bad_key = OpenAiEmbedder::new(
        OpenAiEmbeddingConfig::new("http://h/v1", "m").with_api_key(format!("{KEY}\n")),
    );
    // A trailing newline is trimmed; an inner one is refused without echoing the key.
    assert!(bad_key.is_ok());
    let error = OpenAiEmbedder::new(
        OpenAiEmbeddingConfig::new("http://h/v1", "m").with_api_key(format!("{KEY}\nx")),
    )
    .unwrap_err();
    assert!(!error.to_string().contains(KEY));
}
