//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-memory --test integration <file>::`.
#![cfg(test)]

mod support;

mod config_suggest;
mod configuration_doc;
mod conformance_in_memory;
mod conformance_json_file;
mod context_field;
mod contextual_bm25;
mod conversation;
mod hybrid;
mod hybrid_bulk;
mod hybrid_feedback;
mod hybrid_group;
mod hybrid_long_term;
mod hybrid_window;
mod knowledge;
mod long_term_config;
mod long_term_conformance;
mod long_term_maintenance;
mod proptest_retriever;
mod retriever;
mod scope_validation;
mod vectors_conformance;
mod vectors_index;
