//! Near-duplicate detection against hand-made cases and the quadratic reference.

use super::*;
use chrono::{Duration, Utc};

fn entry(id: i64, weight: f64, memory_type: MemoryType, content: &str) -> TermSet {
    let now = Utc::now();
    TermSet::of(&MemoryEntry {
        id,
        agent_name: "a".into(),
        user_id: "u".into(),
        memory_type,
        name: String::new(),
        content: content.into(),
        description: String::new(),
        metadata: serde_json::Map::new(),
        tags: vec![],
        weight,
        archived: false,
        use_count: 0,
        last_used_at: None,
        weight_updated_at: now,
        created_at: now + Duration::seconds(id),
        updated_at: now,
    })
}

#[test]
fn prefix_lengths_follow_the_bound() {
    assert_eq!(prefix_len(10, 0.9), 2);
    assert_eq!(prefix_len(1, 0.9), 1);
    assert_eq!(prefix_len(5, 1.0), 1);
    assert_eq!(prefix_len(4, 0.5), 3);
    assert_eq!(prefix_len(0, 0.9), 0);
}

#[test]
fn heavier_then_newer_entries_are_kept() {
    let u = MemoryType::User;
    let entries = [
        entry(1, 1.0, u, "Alice likes green tea in the morning"),
        entry(2, 1.0, u, "alice LIKES green teas in the morning!"),
        entry(
            3,
            2.0,
            MemoryType::Project,
            "Alice likes green tea in the morning.",
        ),
        entry(4, 1.0, u, "Alice likes black coffee in the evening"),
    ];
    let found = near_duplicates(&entries, 0.9);
    // 3 is another type; 2 is newer than 1 at the same weight.
    assert_eq!(
        found,
        vec![Duplicate {
            superseded: 1,
            kept: 2
        }]
    );
    let mut heavier = entries.clone();
    heavier[0].weight = 3.0;
    let found = near_duplicates(&heavier, 0.9);
    assert_eq!((found[0].superseded, found[0].kept), (2, 1));
}

#[test]
fn thresholds_separate_near_from_far() {
    let u = MemoryType::User;
    // 9 shared terms of 10 distinct: Jaccard 0.9.
    let a = "alpha bravo charlie delta echo foxtrot golf hotel india";
    let b = "alpha bravo charlie delta echo foxtrot golf hotel india juliet";
    let entries = [entry(1, 1.0, u, a), entry(2, 1.0, u, b)];
    assert_eq!(near_duplicates(&entries, 0.9).len(), 1);
    assert_eq!(near_duplicates(&entries, 0.95).len(), 0);
    assert_eq!(near_duplicates(&entries, 1.0).len(), 0);
    let empty = [entry(1, 1.0, u, "?!"), entry(2, 1.0, u, "…")];
    assert!(near_duplicates(&empty, 0.5).is_empty());
}

#[test]
fn matches_the_quadratic_reference() {
    let u = MemoryType::User;
    let words = ["red", "green", "blue", "tea", "coffee", "milk", "sugar"];
    let mut entries = Vec::new();
    for i in 0..200_i64 {
        let n = usize::try_from(i).unwrap_or(0);
        let text: Vec<&str> = (0..5).map(|k| words[(n * (k + 3) / 7 + k) % 7]).collect();
        entries.push(entry(i, [0.0, 1.0, 2.0][n % 3], u, &text.join(" ")));
    }
    for t in [0.5, 0.75, 0.9, 1.0] {
        let found = near_duplicates(&entries, t);
        let superseded: std::collections::HashSet<i64> =
            found.iter().map(|d| d.superseded).collect();
        // Every pair at or above t has at least one side superseded, and
        // no kept entry is superseded.
        for a in &entries {
            for b in &entries {
                let (sa, sb) = (set(&a.terms), set(&b.terms));
                let j = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
                if a.id < b.id && j >= t {
                    assert!(
                        superseded.contains(&a.id) || superseded.contains(&b.id),
                        "{} ~ {} at {t}",
                        a.id,
                        b.id
                    );
                }
            }
        }
        assert!(found.iter().all(|d| !superseded.contains(&d.kept)));
    }
}

fn set(terms: &[String]) -> std::collections::HashSet<String> {
    terms.iter().cloned().collect()
}
