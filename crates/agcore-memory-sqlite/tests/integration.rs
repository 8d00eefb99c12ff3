//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-memory-sqlite --test integration <file>::`.
#![cfg(test)]

mod long_term_support;

mod bm25_v1_upgrade;
mod context_field;
mod crash_sqlite;
mod long_term_concurrency;
mod long_term_conformance;
mod long_term_extraction;
mod long_term_import;
mod long_term_migration;
mod long_term_pruned;
mod long_term_scope;
mod long_term_search;
mod long_term_upkeep;
mod long_term_weights;
mod long_term_write;
mod multiprocess;
mod pruned_topk;
mod release_fixtures;
mod sqlite_cjk_recall;
mod sqlite_conformance;
mod sqlite_fts_drop;
mod sqlite_impact_migration;
mod sqlite_reindex;
mod sqlite_search;
mod sqlite_store;
mod vectors;
