//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-tools --test integration <file>::`.
#![cfg(test)]

#[cfg(feature = "mcp")]
mod mcp_support;
mod tool_support;

mod executor;
mod invoke_all;
mod mcp_http;
mod mcp_stdio;
mod mcp_stdio_lifecycle;
mod permission;
mod registry;
mod tracing_spans;
