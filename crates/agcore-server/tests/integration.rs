//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper module they share.
//!
//! Run one file's tests with `cargo test -p agcore-server --test integration <file>::`.
#![cfg(test)]

mod common;

mod api;
mod chat;
mod chat_real;
mod chat_scopes;
mod isolation;
mod mcp;
mod openapi;
