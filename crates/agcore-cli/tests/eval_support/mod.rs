//! Helpers shared by the `agcore eval` tests: fixture paths and the binary.
#![cfg(test)]
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// `tests/fixtures/eval/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/eval")
        .join(name)
}

/// The `agcore` binary, in the test's environment.
pub fn agcore() -> Command {
    Command::cargo_bin("agcore").unwrap()
}
