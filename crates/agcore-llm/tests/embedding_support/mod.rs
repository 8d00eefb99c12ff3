//! Helpers shared by the `OpenAiEmbedder` mock-server tests.
#![cfg(test)]
#![allow(dead_code)]

use std::time::Duration;

use agcore_llm::embedding::OpenAiEmbeddingConfig;
use agcore_llm::{Jitter, RetryPolicy};
use base64::Engine as _;
use serde_json::{Value, json};
use wiremock::{MockServer, Request, Respond, ResponseTemplate};

pub const KEY: &str = "sk-embed-5ecret-Key-9876543210";

/// Answers every request with one `dims`-long vector per input whose first
/// component is the text's length and second its position; `usage` counts
/// one token per input. Items are listed in reverse order with their index,
/// so a client that ignores `index` gets them backwards.
pub struct Echo {
    pub dims: usize,
    pub base64: bool,
}

pub fn vector_for(text: &str, position: usize, dims: usize) -> Vec<f32> {
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

pub fn config(server: &MockServer) -> OpenAiEmbeddingConfig {
    OpenAiEmbeddingConfig::new(format!("{}/v1", server.uri()), "test-embed")
        .with_api_key(KEY)
        .with_retry(
            RetryPolicy::new(3)
                .with_base_delay(Duration::from_millis(5))
                .with_jitter(Jitter::None),
        )
}

pub fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| "x".repeat(i + 1)).collect()
}

pub async fn requests(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

pub fn raw_answer(data: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"object": "list", "data": data}))
}
