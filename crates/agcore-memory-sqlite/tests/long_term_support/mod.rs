//! Shared fixtures of the long-term memory tests: every backend under test.
#![cfg(test)]
#![allow(dead_code)]

use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory};
use agcore_memory_sqlite::SqliteLongTerm;

/// An in-memory and a SQLite (in-memory database) long-term memory, named.
pub async fn backends() -> Vec<(&'static str, LongTermMemory)> {
    vec![
        ("in-memory", LongTermMemory::new(InMemoryLongTerm::new())),
        (
            "sqlite",
            LongTermMemory::new(SqliteLongTerm::open_in_memory().await.unwrap()),
        ),
    ]
}
