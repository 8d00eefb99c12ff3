//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore --test integration <file>::`.
#![cfg(test)]

mod attach;
mod chat_knowledge;
mod doc_links;
mod open_storage;
mod secret_canary;
mod vectors_storage;
