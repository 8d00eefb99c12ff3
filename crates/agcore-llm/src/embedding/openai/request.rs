//! One embeddings request of an [`OpenAiEmbedder`]: sending (with retries and
//! a `tracing` span) and checking the answer's count and vector length.

use std::time::Instant;

use tracing::{Instrument, field::Empty};

use super::wire::{Decoded, EmbeddingRequest, decode_response};
use super::{EncodingFormat, OpenAiEmbedder};
use crate::LlmError;
use crate::embedding::{InputKind, check_batch};
use crate::openai::http::{JsonPost, read_body};

impl OpenAiEmbedder {
    /// Sends one request (with retries) and returns its checked vectors.
    pub(super) async fn embed_request(
        &self,
        inputs: &[String],
        kind: InputKind,
    ) -> Result<Decoded, LlmError> {
        let request = EmbeddingRequest {
            model: &self.config.model,
            input: inputs,
            encoding_format: match self.config.encoding_format {
                EncodingFormat::Float => None,
                EncodingFormat::Base64 => Some("base64"),
            },
            dimensions: self.config.request_dimensions,
            input_type: self.config.query_mode.input_type(kind),
        };
        let body = serde_json::to_vec(&request).map_err(|e| LlmError::InvalidRequest {
            message: format!("request cannot be serialized: {e}"),
        })?;
        let decoded = crate::retry(
            &self.config.retry,
            |_| self.send_once(body.clone(), inputs.len()),
            |retry, error, delay| {
                tracing::warn!(retry, delay_ms = delay.as_millis() as u64, %error, "embedding request failed; retrying");
            },
        )
        .await?;
        self.check(&decoded, inputs.len())?;
        Ok(decoded)
    }

    async fn send_once(&self, body: Vec<u8>, inputs: usize) -> Result<Decoded, LlmError> {
        let span = tracing::info_span!(
            "llm.embed",
            model = %self.config.model,
            inputs,
            status = Empty,
            latency_ms = Empty,
            prompt_tokens = Empty,
        );
        let limit = self.config.request_timeout;
        async {
            let started = Instant::now();
            let response = JsonPost {
                client: &self.client,
                url: &self.url,
                headers: &self.headers,
                api_key: self.config.api_key(),
                send_timeout: limit,
                total_timeout: Some(limit),
            }
            .send(body)
            .await?;
            let decoded = decode_response(&read_body(response, limit).await?)?;
            let span = tracing::Span::current();
            span.record("latency_ms", started.elapsed().as_millis() as u64);
            span.record("prompt_tokens", decoded.prompt_tokens);
            Ok(decoded)
        }
        .instrument(span)
        .await
    }

    /// Checks count, length and finiteness; learns the length from the first
    /// good answer when it was not known.
    fn check(&self, decoded: &Decoded, expected: usize) -> Result<(), LlmError> {
        let dimensions = match self.dimensions.get() {
            Some(known) => *known,
            None => decoded.vectors.first().map_or(0, Vec::len),
        };
        check_batch(&decoded.vectors, expected, dimensions)?;
        if dimensions == 0 {
            return Err(LlmError::Decode {
                message: "the embedding model returned empty vectors".into(),
            });
        }
        let learned = *self.dimensions.get_or_init(|| dimensions);
        if learned != dimensions {
            return Err(LlmError::Decode {
                message: format!(
                    "the embedding model returned {dimensions} components, earlier answers had {learned}"
                ),
            });
        }
        Ok(())
    }
}
