//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-agent --test integration <file>::`.
#![cfg(test)]

mod common;
mod llm_mock_support;

mod attach_agent;
mod attach_config;
mod attach_file_store;
mod attach_file_store_disk;
mod attach_manager;
mod attach_stores;
mod attach_task_stages;
mod chat_agent;
mod contexts;
mod extraction_structured;
mod interop_llama;
mod llm_chaos;
mod long_term_core;
mod long_term_extraction;
mod long_term_facts;
mod long_term_feedback;
mod long_term_hybrid;
mod long_term_per_agent;
mod long_term_prefetch;
mod long_term_short_term;
mod long_term_tools;
mod long_term_turn;
mod memory_injection;
mod memory_provenance;
mod prompt_overrides;
mod retrieve_tool;
mod session_finish;
mod session_history;
mod session_stored;
mod session_turns;
mod streaming_and_tasks;
mod tool_isolation_campaign;
mod untrusted_blocks;
mod untrusted_paths;
