//! The generated corpus the benches of this crate share: conversation-like
//! memories from a small vocabulary, in sessions of 20 turns.

use agcore_memory::MemoryItem;
use chrono::{Duration, TimeZone, Utc};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// Turns per session (`metadata.session` is the turn number / this).
pub const SESSION: usize = 20;

/// The vocabulary of the generated turns.
pub const WORDS: &[&str] = &[
    "painting",
    "marathon",
    "camping",
    "guitar",
    "adoption",
    "school",
    "friends",
    "family",
    "pottery",
    "concert",
    "beach",
    "hiking",
    "career",
    "counseling",
    "support",
    "group",
    "dinner",
    "recipe",
    "garden",
    "puppy",
    "travel",
    "museum",
    "book",
    "library",
    "project",
    "workshop",
    "violin",
    "sunrise",
    "lake",
    "mountain",
    "festival",
    "parade",
    "volunteer",
];

/// `n` turns of 8–29 words drawn with `seed`, ids `{prefix}t{i:06}`, in
/// sessions of [`SESSION`], one second apart from 2024-01-01.
pub fn corpus(n: usize, seed: u64, prefix: &str) -> Vec<MemoryItem> {
    let mut rng = StdRng::seed_from_u64(seed);
    let start = Utc
        .with_ymd_and_hms(2024, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default();
    (0..n)
        .map(|i| {
            let len = rng.random_range(8..30);
            let text: Vec<&str> = (0..len)
                .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                .collect();
            MemoryItem::new(format!("{prefix}t{i:06}"), text.join(" "))
                .with_metadata(serde_json::json!({ "session": i / SESSION }))
                .with_created_at(start + Duration::seconds(i64::try_from(i).unwrap_or(0)))
        })
        .collect()
}
