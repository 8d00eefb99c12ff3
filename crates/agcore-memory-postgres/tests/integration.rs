//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-memory-postgres --test integration <file>::`.
#![cfg(test)]

mod context_support;
mod support;

mod analyze;
mod conformance;
mod context_field;
mod context_settings;
mod context_writes;
mod layered;
mod long_term_concurrency;
mod long_term_conformance;
mod long_term_upgrade;
mod multiprocess;
mod outage;
mod ranking;
mod reindex;
mod schema;
mod vectors;
