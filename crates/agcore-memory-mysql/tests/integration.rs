//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-memory-mysql --test integration <file>::`.
#![cfg(test)]

mod support;

mod conformance;
mod context_field;
mod layered;
mod long_term_conformance;
mod long_term_df;
mod multiprocess;
mod outage;
mod ranking;
mod reindex;
mod schema;
mod store_df;
mod vectors;
