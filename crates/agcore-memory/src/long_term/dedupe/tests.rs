//! Near-duplicate detection against hand-made cases and the quadratic reference.

use super::*;
use chrono::{Duration, Utc};
use proptest::prelude::*;

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

/// The exhaustive reference: every pair compared, in rank order.
fn brute_force(entries: &[TermSet], t: f64) -> Vec<Duplicate> {
    let mut ranked: Vec<&TermSet> = entries.iter().collect();
    ranked.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then(b.created_at.cmp(&a.created_at))
            .then(b.id.cmp(&a.id))
    });
    let mut superseded = vec![false; ranked.len()];
    let mut out = Vec::new();
    for i in 0..ranked.len() {
        if superseded[i] {
            continue;
        }
        for j in i + 1..ranked.len() {
            let (a, b) = (ranked[i], ranked[j]);
            let (sa, sb) = (set(&a.terms), set(&b.terms));
            let shared = sa.intersection(&sb).count();
            let union = sa.union(&sb).count();
            let near = shared > 0 && shared as f64 >= t * union as f64 - 1e-9;
            if !superseded[j] && a.memory_type == b.memory_type && near {
                superseded[j] = true;
                out.push(Duplicate {
                    superseded: b.id,
                    kept: a.id,
                });
            }
        }
    }
    out
}

fn random_sets(specs: &[(u8, bool, Vec<u8>)]) -> Vec<TermSet> {
    let now = Utc::now();
    specs
        .iter()
        .enumerate()
        .map(|(i, (weight, project, words))| {
            let id = i64::try_from(i).unwrap_or(0);
            let kind = if *project {
                MemoryType::Project
            } else {
                MemoryType::User
            };
            let terms = words.iter().map(|w| format!("w{w}")).collect();
            TermSet::new(
                id,
                kind,
                f64::from(*weight % 3),
                now + Duration::seconds(id % 4),
                terms,
            )
        })
        .collect()
}

proptest! {
    #[test]
    fn equals_the_exhaustive_reference(
        specs in prop::collection::vec(
            (any::<u8>(), prop::bool::weighted(0.2), prop::collection::vec(0_u8..12, 0..9)),
            0..40,
        ),
        t in prop::sample::select(vec![0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 1.0]),
    ) {
        let sets = random_sets(&specs);
        prop_assert_eq!(near_duplicates(&sets, t), brute_force(&sets, t));
    }

    #[test]
    fn incremental_runs_equal_full_runs(
        specs in prop::collection::vec(
            (any::<u8>(), prop::bool::weighted(0.2), prop::collection::vec(0_u8..12, 0..9)),
            0..40,
        ),
        split in 0_usize..40,
        t in prop::sample::select(vec![0.5, 0.75, 0.9]),
    ) {
        let sets = random_sets(&specs);
        // A first run over the older entries; the kept ones are settled.
        let (old, _) = sets.split_at(split.min(sets.len()));
        let scope = crate::long_term::MemoryScope::new("a", "u").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let memo = DedupeMemo::default();
        let first = near_duplicates(old, t);
        memo.record(&scope, t, old, &first);
        let kept: Vec<TermSet> = sets
            .iter()
            .filter(|s| !first.iter().any(|d| d.superseded == s.id))
            .cloned()
            .collect();
        let fresh = memo.fresh(&scope, t, &kept);
        let flags: std::collections::HashMap<i64, bool> =
            kept.iter().map(|s| s.id).zip(fresh).collect();
        let found = near_duplicates_among(&kept, t, &|s| flags.get(&s.id).copied().unwrap_or(true));
        prop_assert_eq!(found, brute_force(&kept, t));
    }
}
