//! Helpers shared by the SSE decoding and folding tests: recorded fixtures
//! and a blocking driver of `decode_sse` / `fold_stream`.
#![cfg(test)]
#![allow(dead_code)]

use agcore_llm::types::ChatResponse;
use agcore_llm::{LlmError, StreamEvent, decode_sse, fold_stream};
use futures::StreamExt;

/// The bytes of `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs `future` to completion on a current-thread runtime.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// All items of the decoded stream; an `Err` is kept as its text.
pub fn decode_parts(parts: Vec<Result<Vec<u8>, LlmError>>) -> Vec<Result<StreamEvent, String>> {
    block_on(
        decode_sse(futures::stream::iter(parts))
            .map(|item| item.map_err(|e| e.to_string()))
            .collect(),
    )
}

/// The decoded items of `bytes` delivered as one chunk.
pub fn decode(bytes: &[u8]) -> Vec<Result<StreamEvent, String>> {
    decode_parts(vec![Ok(bytes.to_vec())])
}

/// `bytes` (one chunk) decoded and folded into a response.
pub fn fold_bytes(bytes: &[u8]) -> Result<ChatResponse, LlmError> {
    block_on(fold_stream(decode_sse(futures::stream::iter(vec![Ok::<
        _,
        LlmError,
    >(
        bytes.to_vec(),
    )]))))
}
