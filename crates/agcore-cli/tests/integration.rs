//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-cli --test integration <file>::`.
#![cfg(test)]

mod cli_support;
mod eval_support;

mod agent_config;
mod attach_cmd;
mod chat_cmd;
mod chat_sessions;
mod chat_setup;
mod chat_wiki;
mod config_errors;
mod demo_cmd;
mod eval;
mod eval_bad_input;
mod eval_embeddings;
mod eval_servers;
mod kill_import;
mod memory_admin;
mod memory_cmd;
mod memory_cross_backend;
mod memory_import_scopes;
mod memory_maintain;
mod memory_netaclaw;
mod memory_transfer;
mod scope_ids;
mod serve_cmd;
mod wiki_cmd;
mod zh_dialogue;
