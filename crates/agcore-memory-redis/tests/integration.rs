//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-memory-redis --test integration <file>::`.
#![cfg(test)]

mod support;

mod conformance;
mod context_expiry;
mod outage;
mod ranking;
mod reindex;
mod vectors;
