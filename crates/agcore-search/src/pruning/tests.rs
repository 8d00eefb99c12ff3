//! Tests of [`MaxScorePlan`](super::MaxScorePlan).

use super::*;
use crate::bm25::{Bm25, MAX_TF_PART};
use proptest::prelude::*;

/// The fewest rows a round leaves out in these tests (MySQL's default).
const MIN_SAVED_ROWS: u64 = 1_000;

/// The plan of long-term memory: FTS5's idf over `docs` entries.
fn fts5(docs: f64, dfs: &[f64]) -> MaxScorePlan {
    let bounds: Vec<f64> = dfs
        .iter()
        .map(|&df| Bm25::fts5_idf(docs, df) * MAX_TF_PART)
        .collect();
    MaxScorePlan::new(&bounds, dfs, MIN_SAVED_ROWS)
}

#[test]
fn rare_words_become_essential_first() {
    let p = fts5(100_000.0, &[70_000.0, 100.0, 5_000.0]);
    assert_eq!(p.essential(1), [1]);
    assert_eq!(p.essential(2), [1, 2]);
    assert_eq!(p.next(0), 1);
    // The common word's bound is small: a good candidate settles it.
    assert!(p.settled(2, 5, 5, Some(10.0)));
    assert!(!p.settled(2, 4, 5, Some(10.0)));
    assert!(!p.settled(1, 5, 5, Some(0.5)));
    assert!(p.settled(3, 0, 5, None));
    // A minimum score above the pruned bounds settles with fewer found.
    assert!(p.below(2, 1.0) && !p.below(1, 1.0) && p.below(3, 0.0));
}

#[test]
fn few_rows_left_out_are_matched_at_once() {
    // 900 rows left out: not worth a round of its own.
    let p = fts5(100_000.0, &[10.0, 900.0]);
    assert_eq!(p.next(0), 2);
    let p = fts5(100_000.0, &[10.0, 9_000.0]);
    assert_eq!(p.next(0), 1);
    // Essential words matching fewer documents than asked for do not
    // start a round.
    let p = fts5(100_000.0, &[10.0, 9_000.0]);
    assert_eq!(p.clone().for_limit(10).next(0), 1);
    assert_eq!(p.for_limit(11).next(0), 2);
    // A jump that would leave out few rows takes every word.
    let p = fts5(100_000.0, &[10.0, 20.0, 600.0, 700.0]);
    assert_eq!(p.next(0), 2);
    assert_eq!(p.after(2, 10, 10, Some(6.0), 1), 4);
}

#[test]
fn equal_words_are_all_matched_before_settling() {
    // Two words of equal frequency: one alone can never outscore the other.
    let p = fts5(1_000.0, &[10.0, 10.0]);
    assert_eq!(p.next(0), 2);
    assert_eq!(p.essential(2), [0, 1]);
}

proptest! {
    /// Whatever the frequencies, a settled plan's pruned words cannot
    /// reach the k-th score, and plans grow to exhaustive.
    #[test]
    fn a_settled_plan_prunes_only_what_cannot_enter(
        dfs in proptest::collection::vec(1.0_f64..100_000.0, 1..8),
        kth in 0.0_f64..40.0,
    ) {
        let p = fts5(100_000.0, &dfs);
        let mut e = p.next(0);
        while e < p.len() {
            if p.settled(e, 10, 10, Some(kth)) {
                let pruned: f64 = p.order[e..]
                    .iter()
                    .map(|&i| Bm25::fts5_idf(100_000.0, dfs[i]) * MAX_TF_PART)
                    .sum();
                prop_assert!(pruned < kth);
            }
            e = p.next(e + 1);
        }
        prop_assert!(p.settled(p.len(), 0, 10, None));
        // A jump after a round with `kth` settles with any k-th score
        // at least `kth` (a larger candidate set's).
        if kth > 0.0 {
            let first = p.next(0);
            if !p.settled(first, 10, 10, Some(kth)) {
                let jump = p.after(first, 10, 10, Some(kth), 1);
                prop_assert!(jump > first);
                prop_assert!(p.settled(jump, 10, 10, Some(kth)));
                prop_assert!(p.settled(jump, 10, 10, Some(kth * 1.5)));
            }
            prop_assert_eq!(p.after(first, 10, 10, Some(kth), 2), p.len());
        }
        prop_assert_eq!(p.essential(p.len()).len(), dfs.len());
    }
}
