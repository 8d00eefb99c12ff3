//! The integration tests of this crate, linked into one test binary: one module per
//! file beside this one, and the helper modules they share.
//!
//! Run one file's tests with `cargo test -p agcore-prompt --test integration <file>::`.
#![cfg(test)]

mod composer;
mod properties;
mod registry;
mod template;
