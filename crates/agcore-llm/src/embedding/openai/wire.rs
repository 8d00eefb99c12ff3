//! The JSON of `POST /embeddings`: the request body, and the response read
//! into vectors in input order.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use crate::LlmError;
use crate::error_object::{ApiError, EXCERPT_BYTES, excerpt};

/// The request body (OpenAI "Create embeddings", plus `input_type`).
#[derive(Debug, Serialize)]
pub(crate) struct EmbeddingRequest<'a> {
    pub model: &'a str,
    /// Always an array, so one text and many are answered alike.
    pub input: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding_format: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_type: Option<&'a str>,
}

#[derive(Debug, Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingItem>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
struct EmbeddingItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: EmbeddingValue,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum EmbeddingValue {
    Floats(Vec<f32>),
    Base64(String),
    /// One vector per token: a llama.cpp model without pooling.
    PerToken(Vec<Vec<f32>>),
}

#[derive(Debug, Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
}

/// The vectors of a response, in input order, and its `usage.prompt_tokens`
/// (0 when absent).
#[derive(Debug, PartialEq)]
pub(crate) struct Decoded {
    pub vectors: Vec<Vec<f32>>,
    pub prompt_tokens: u64,
}

/// Reads a response body. Items are put in order by their `index`; when no
/// item has one, the list order is used.
///
/// # Errors
/// [`LlmError::Decode`] for a body that is not an embedding list, indices
/// that are not a permutation of `0..n` (missing, repeated, out of range or
/// on some items only), bad base64 or a byte length that is not a multiple of
/// 4, per-token vectors; an `{"error": …}` body as its error.
pub(crate) fn decode_response(body: &[u8]) -> Result<Decoded, LlmError> {
    let response: EmbeddingResponse = serde_json::from_slice(body).map_err(|e| {
        let text = String::from_utf8_lossy(body);
        match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(value) if value.get("error").is_some() => ApiError::parse(&text).into_stream_error(),
            _ => LlmError::Decode {
                message: format!(
                    "response is not an embedding list: {e}; body: {}",
                    excerpt(&text, EXCERPT_BYTES)
                ),
            },
        }
    })?;
    let count = response.data.len();
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; count];
    let indexed = response.data.iter().filter(|d| d.index.is_some()).count();
    if indexed != 0 && indexed != count {
        return Err(decode_error(format!(
            "{indexed} of {count} embeddings carry an index"
        )));
    }
    for (position, item) in response.data.into_iter().enumerate() {
        let index = item.index.unwrap_or(position);
        let vector = vector_of(item.embedding, index)?;
        match slots.get_mut(index) {
            Some(slot @ None) => *slot = Some(vector),
            Some(Some(_)) => return Err(decode_error(format!("embedding index {index} repeats"))),
            None => {
                return Err(decode_error(format!(
                    "embedding index {index} is out of range for {count} items"
                )));
            }
        }
    }
    // Every slot is filled: `count` distinct indices below `count`.
    let vectors = slots.into_iter().flatten().collect();
    Ok(Decoded {
        vectors,
        prompt_tokens: response.usage.map_or(0, |u| u.prompt_tokens),
    })
}

fn vector_of(value: EmbeddingValue, index: usize) -> Result<Vec<f32>, LlmError> {
    match value {
        EmbeddingValue::Floats(v) => Ok(v),
        EmbeddingValue::Base64(text) => decode_base64_f32(&text)
            .map_err(|message| decode_error(format!("embedding {index}: {message}"))),
        EmbeddingValue::PerToken(rows) => Err(decode_error(format!(
            "embedding {index} is one vector per token ({} rows): the server does not pool \
             (for llama.cpp, use a model whose metadata sets a pooling type)",
            rows.len()
        ))),
    }
}

/// Decodes base64 text holding little-endian IEEE-754 `f32` values.
///
/// # Errors
/// A message when the text is not base64 or its length is not a multiple of 4 bytes.
pub(crate) fn decode_base64_f32(text: &str) -> Result<Vec<f32>, String> {
    let bytes = STANDARD
        .decode(text.trim())
        .map_err(|e| format!("invalid base64: {e}"))?;
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{} bytes of base64 data are not a whole number of f32 values",
            bytes.len()
        ));
    }
    let mut values = Vec::with_capacity(bytes.len() / 4);
    for chunk in bytes.chunks_exact(4) {
        if let &[a, b, c, d] = chunk {
            values.push(f32::from_le_bytes([a, b, c, d]));
        }
    }
    Ok(values)
}

fn decode_error(message: String) -> LlmError {
    LlmError::Decode { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(values: &[f32]) -> String {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        STANDARD.encode(bytes)
    }

    #[test]
    fn orders_by_index_and_reads_usage() {
        let body = br#"{"object":"list","data":[
            {"object":"embedding","index":1,"embedding":[3.0,4.0]},
            {"object":"embedding","index":0,"embedding":[1.0,2.0]}],
            "model":"m","usage":{"prompt_tokens":7,"total_tokens":7}}"#;
        let decoded = decode_response(body).unwrap();
        assert_eq!(decoded.vectors, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert_eq!(decoded.prompt_tokens, 7);
    }

    #[test]
    fn base64_and_missing_index_and_usage() {
        let body = format!(
            r#"{{"data":[{{"embedding":"{}"}},{{"embedding":[0.5]}}]}}"#,
            b64(&[0.25, -1.5, f32::MAX])
        );
        let decoded = decode_response(body.as_bytes()).unwrap();
        assert_eq!(decoded.vectors, vec![vec![0.25, -1.5, f32::MAX], vec![0.5]]);
        assert_eq!(decoded.prompt_tokens, 0);
    }

    #[test]
    fn bad_indices_are_decode_errors() {
        for body in [
            r#"{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}"#,
            r#"{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[2]}]}"#,
            r#"{"data":[{"index":0,"embedding":[1]},{"embedding":[2]}]}"#,
        ] {
            assert!(
                matches!(
                    decode_response(body.as_bytes()),
                    Err(LlmError::Decode { .. })
                ),
                "{body}"
            );
        }
    }

    #[test]
    fn bad_payloads_are_decode_errors() {
        let per_token = r#"{"data":[{"index":0,"embedding":[[1,2],[3,4]]}]}"#;
        let err = decode_response(per_token.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("per token"), "{err}");
        assert!(decode_base64_f32("AAAA").is_err()); // 3 bytes
        assert!(decode_base64_f32("not base64!").is_err());
        assert!(matches!(
            decode_response(b"<html>"),
            Err(LlmError::Decode { .. })
        ));
        let api = decode_response(br#"{"error":{"message":"boom","type":"server_error"}}"#);
        assert!(api.is_err());
    }

    #[test]
    fn request_omits_unset_fields() {
        let input = vec!["a".to_owned()];
        let request = EmbeddingRequest {
            model: "m",
            input: &input,
            encoding_format: None,
            dimensions: None,
            input_type: None,
        };
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            serde_json::json!({"model": "m", "input": ["a"]})
        );
    }
}
