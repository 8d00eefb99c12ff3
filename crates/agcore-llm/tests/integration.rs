//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-llm --test integration <file>::`.
#![cfg(test)]

mod cycle_support;
#[cfg(feature = "openai")]
mod embedding_support;
#[cfg(feature = "openai")]
mod openai_http_support;
mod sse_support;

mod compact_micro;
mod compact_summary;
mod cost_tracker;
mod cycle_cancellation;
mod cycle_compaction;
mod cycle_requests;
mod cycle_stream;
mod cycle_tools;
mod cycle_usage;
mod embeddings_http;
mod embeddings_http_errors;
mod hooks_executor;
mod interop_embeddings;
mod interop_llama;
mod mock_provider;
mod openai_http;
mod openai_http_config;
mod openai_http_stream;
mod registry_config;
mod sse_byte_splits;
mod sse_decode;
mod sse_fold_equivalence;
