#![cfg(test)]
//! `OpenAiEmbedder` against a mock HTTP server: batching, ordering by `index`,
//! base64, query/document modes, retries, probing, empty input.
#![cfg(feature = "openai")]

use crate::embedding_support;

use agcore_llm::embedding::{EmbeddingModel, EncodingFormat, InputKind, OpenAiEmbedder, QueryMode};
use embedding_support::{Echo, KEY, config, requests, texts, vector_for};
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

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
