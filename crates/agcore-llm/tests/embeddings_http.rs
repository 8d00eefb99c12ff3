#![cfg(test)]
//! `OpenAiEmbedder` against a mock HTTP server: batching, ordering, base64,
//! query/document modes, retries, error mapping, shape checks and the API
//! key staying secret.
#![cfg(feature = "openai")]

use std::time::Duration;

use agcore_llm::embedding::{
    EmbeddingModel, EncodingFormat, InputKind, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode,
};
use agcore_llm::{Jitter, LlmError, RetryPolicy};
use base64::Engine as _;
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const KEY: &str = "sk-embed-5ecret-Key-9876543210";

/// Answers every request with one `dims`-long vector per input whose first
/// component is the text's length and second its position; `usage` counts
/// one token per input. Items are listed in reverse order with their index,
/// so a client that ignores `index` gets them backwards.
struct Echo {
    dims: usize,
    base64: bool,
}

fn vector_for(text: &str, position: usize, dims: usize) -> Vec<f32> {
    let mut v = vec![0.5f32; dims];
    v[0] = text.chars().count() as f32;
    if dims > 1 {
        v[1] = position as f32;
    }
    v
}

impl Respond for Echo {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let inputs: Vec<String> = serde_json::from_value(body["input"].clone()).unwrap();
        let mut data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let v = vector_for(text, i, self.dims);
                let embedding = if self.base64 {
                    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    json!(base64::engine::general_purpose::STANDARD.encode(bytes))
                } else {
                    json!(v)
                };
                json!({"object": "embedding", "index": i, "embedding": embedding})
            })
            .collect();
        data.reverse();
        ResponseTemplate::new(200).set_body_json(json!({
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": inputs.len(), "total_tokens": inputs.len()}
        }))
    }
}

fn config(server: &MockServer) -> OpenAiEmbeddingConfig {
    OpenAiEmbeddingConfig::new(format!("{}/v1", server.uri()), "test-embed")
        .with_api_key(KEY)
        .with_retry(
            RetryPolicy::new(3)
                .with_base_delay(Duration::from_millis(5))
                .with_jitter(Jitter::None),
        )
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| "x".repeat(i + 1)).collect()
}

async fn requests(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn batches_split_by_item_limit_and_keep_order() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(Echo {
            dims: 4,
            base64: false,
        })
        .expect(3)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(config(&server).with_max_batch_items(5)).unwrap();
    assert_eq!(embedder.dimensions(), 0, "unknown until the first answer");
    let input = texts(15);
    let batch = embedder.embed(&input, InputKind::Document).await.unwrap();
    assert_eq!(batch.vectors.len(), 15);
    for (i, v) in batch.vectors.iter().enumerate() {
        // Reordered by `index`: the text's length, then its position in its request.
        assert_eq!(v[0], (i + 1) as f32);
        assert_eq!(v[1], (i % 5) as f32);
    }
    assert_eq!(batch.prompt_tokens, 15);
    assert_eq!(embedder.dimensions(), 4, "learned from the first answer");
    let sent = requests(&server).await;
    assert!(
        sent.iter()
            .all(|b| b["input"].as_array().unwrap().len() == 5)
    );
    assert!(sent.iter().all(|b| b["model"] == "test-embed"));
    assert!(sent[0].get("encoding_format").is_none());
    assert!(sent[0].get("input_type").is_none());
}

#[tokio::test]
async fn batches_split_by_token_limit() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Echo {
            dims: 3,
            base64: false,
        })
        .mount(&server)
        .await;
    // Each 40-character text is ~10 estimated tokens: 25 tokens allow two per request.
    let embedder = OpenAiEmbedder::new(config(&server).with_max_batch_tokens(25)).unwrap();
    let input: Vec<String> = (0..6).map(|i| format!("{i}{}", "y".repeat(39))).collect();
    let batch = embedder.embed(&input, InputKind::Document).await.unwrap();
    assert_eq!(batch.vectors.len(), 6);
    let sent = requests(&server).await;
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[2]["input"][1], input[5]);
}

#[tokio::test]
async fn base64_vectors_are_decoded() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"encoding_format": "base64"})))
        .respond_with(Echo {
            dims: 6,
            base64: true,
        })
        .expect(1)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(
        config(&server)
            .with_encoding_format(EncodingFormat::Base64)
            .with_dimensions(6),
    )
    .unwrap();
    let input = vec!["ab".to_owned(), "青岛三天".to_owned()];
    let batch = embedder.embed(&input, InputKind::Query).await.unwrap();
    assert_eq!(batch.vectors[0], vector_for("ab", 0, 6));
    assert_eq!(batch.vectors[1], vector_for("青岛三天", 1, 6));
}

#[tokio::test]
async fn input_type_mode_sends_the_field() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Echo {
            dims: 2,
            base64: false,
        })
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(
        config(&server)
            .with_query_mode(QueryMode::input_type_query_passage())
            .with_request_dimensions(2),
    )
    .unwrap();
    let one = vec!["hello".to_owned()];
    embedder.embed(&one, InputKind::Query).await.unwrap();
    embedder.embed(&one, InputKind::Document).await.unwrap();
    let sent = requests(&server).await;
    assert_eq!(sent[0]["input_type"], "query");
    assert_eq!(sent[1]["input_type"], "passage");
    assert_eq!(sent[0]["input"], json!(["hello"]), "no prefix");
    assert_eq!(sent[0]["dimensions"], 2);
}

#[tokio::test]
async fn prefix_mode_prepends_the_prefix() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Echo {
            dims: 2,
            base64: false,
        })
        .mount(&server)
        .await;
    let embedder =
        OpenAiEmbedder::new(config(&server).with_query_mode(QueryMode::e5_prefixes())).unwrap();
    let query = embedder.embed_query("她去哪里了").await.unwrap();
    assert_eq!(query[0], "query: 她去哪里了".chars().count() as f32);
    embedder
        .embed(&["海边".to_owned()], InputKind::Document)
        .await
        .unwrap();
    let sent = requests(&server).await;
    assert_eq!(sent[0]["input"], json!(["query: 她去哪里了"]));
    assert_eq!(sent[1]["input"], json!(["passage: 海边"]));
    assert!(sent[0].get("input_type").is_none());
}

#[tokio::test]
async fn rate_limit_is_retried_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after-ms", "10"))
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(Echo {
            dims: 3,
            base64: false,
        })
        .expect(1)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(config(&server)).unwrap();
    let batch = embedder
        .embed(&texts(2), InputKind::Document)
        .await
        .unwrap();
    assert_eq!(batch.vectors.len(), 2);
}

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

fn raw_answer(data: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"object": "list", "data": data}))
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
async fn connect_probes_the_length() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Echo {
            dims: 7,
            base64: false,
        })
        .expect(1)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::connect(config(&server)).await.unwrap();
    assert_eq!(embedder.dimensions(), 7);
    assert_eq!(embedder.space().dimensions, 7);
    assert_eq!(embedder.model_id(), "test-embed");
}

#[tokio::test]
async fn empty_input_sends_nothing() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(config(&server)).unwrap();
    let batch = embedder.embed(&[], InputKind::Document).await.unwrap();
    assert!(batch.vectors.is_empty());
    assert_eq!(batch.prompt_tokens, 0);
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
