//! The long-term corpus of the agent benches: N memories in the scope
//! `bench/user-0` among 100 scopes of 20, in one SQLite file, and p50/p99 of
//! timed samples.

use std::time::Duration;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};
use agcore_memory_sqlite::SqliteLongTerm;

/// Scopes in the file (the measured one and 99 others).
pub const SCOPES: usize = 100;
/// Memories in each of the other scopes.
pub const OTHER_SCOPE_ENTRIES: usize = 20;
/// Topics the memories and the queries cycle through.
pub const TOPICS: [&str; 8] = [
    "green tea",
    "python tooling",
    "rust compiler",
    "hiking trips",
    "jazz records",
    "database tuning",
    "garden roses",
    "chess openings",
];

/// The text of memory `i`.
pub fn text(i: usize) -> String {
    let topic = TOPICS[i % TOPICS.len()];
    format!(
        "Note {i}: the user mentioned {topic} on day {} with detail {}",
        i / 7,
        i * 31 % 997
    )
}

/// A SQLite file in `dir` with the other scopes and `n` memories in
/// `bench/user-0`.
pub async fn seed(n: usize, dir: &std::path::Path, file: &str) -> (LongTermMemory, SqliteLongTerm) {
    let backend = SqliteLongTerm::open(dir.join(format!("{file}-{n}.db")))
        .await
        .unwrap();
    let memory = LongTermMemory::new(backend.clone());
    for s in 1..SCOPES {
        let scope = memory.scope("bench", format!("user-{s}")).unwrap();
        for i in 0..OTHER_SCOPE_ENTRIES {
            scope
                .save(NewMemory::new(MemoryType::User, "n", text(i)))
                .await
                .unwrap();
        }
    }
    let target = memory.scope("bench", "user-0").unwrap();
    for i in 0..n {
        target
            .save(NewMemory::new(MemoryType::User, "n", text(i)))
            .await
            .unwrap();
    }
    (memory, backend)
}

/// (p50, p99) of `samples`.
pub fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.50), at(0.99))
}
