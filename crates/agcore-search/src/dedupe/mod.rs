//! Near-duplicate detection over term sets: Jaccard similarity
//! `|A ∩ B| / |A ∪ B|` of the sets of terms (analyzer output) of two texts.
//!
//! [`near_duplicate_pairs`] runs an all-pairs similarity join: terms ordered
//! by ascending document frequency, prefix filtering (Chaudhuri, Ganti and
//! Kaushik, ICDE 2006; Bayardo, Ma and Srikant, "Scaling up all pairs
//! similarity search", WWW 2007), and the length and positional filters and
//! early-terminating verification of PPJoin (Xiao, Wang, Lin and Yu,
//! "Efficient similarity joins for near duplicate detection", WWW 2008).

mod join;

use crate::keywords::{is_cjk, is_cjk_unigram};
use join::{Index, Probe, ranked_terms};

/// The default Jaccard threshold of near duplicates: 0.9.
pub const DEFAULT_DEDUPE_THRESHOLD: f64 = 0.9;

/// `terms` without the CJK unigrams whose character a CJK bigram of the
/// same terms holds: documents are indexed with unigrams
/// ([`extract_document_keywords`](crate::extract_document_keywords)) to
/// serve one-character searches; near duplicates are compared on bigrams.
///
/// # Examples
/// ```
/// use agcore_search::{dedupe::without_covered_unigrams, index_terms};
/// assert_eq!(without_covered_unigrams(index_terms("记忆系统 猫")), ["记忆", "忆系", "系统", "猫"]);
/// ```
pub fn without_covered_unigrams(terms: Vec<String>) -> Vec<String> {
    if !terms.iter().any(|t| is_cjk_unigram(t)) {
        return terms;
    }
    let covered: std::collections::HashSet<char> = terms
        .iter()
        .filter(|t| t.chars().count() == 2 && t.chars().all(is_cjk))
        .flat_map(|t| t.chars())
        .collect();
    terms
        .into_iter()
        .filter(|t| !is_cjk_unigram(t) || t.chars().all(|c| !covered.contains(&c)))
        .collect()
}

/// The near-duplicate pairs of `sets` (term lists, duplicates allowed,
/// given in rank order, best first) at Jaccard `threshold` (clamped to
/// `(0, 1]`; NaN counts as 1), as `(kept, superseded)` indices into `sets`.
///
/// A greedy sweep in rank order: each set is superseded by the first kept
/// set before it with Jaccard ≥ `threshold`, else kept, so a kept set is
/// never superseded itself. Sets for which `fresh` is `false` are known to
/// hold no near-duplicate pair among themselves (a previous run kept them,
/// unchanged): they are only compared with the fresh ones — the same result
/// when that holds, at the cost of the fresh sets only. A missing `fresh`
/// flag counts as fresh. Empty sets are never duplicates. Pairs come in
/// the order of the superseded set.
///
/// # Examples
/// ```
/// use agcore_search::dedupe::near_duplicate_pairs;
/// let sets = [vec!["green".to_owned(), "tea".to_owned()], vec!["tea".to_owned(), "green".to_owned()]];
/// assert_eq!(near_duplicate_pairs(sets.iter().map(Vec::as_slice), &[true, true], 0.9), [(0, 1)]);
/// ```
pub fn near_duplicate_pairs<'a, I>(sets: I, fresh: &[bool], threshold: f64) -> Vec<(usize, usize)>
where
    I: IntoIterator<Item = &'a [String]>,
{
    let t = if threshold.is_nan() {
        1.0
    } else {
        threshold.clamp(f64::MIN_POSITIVE, 1.0)
    };
    sweep(&ranked_terms(sets), fresh, t)
}

/// The greedy sweep over `sets` in rank order: each set is superseded by
/// the first kept set before it at Jaccard ≥ `t`, else kept and indexed.
/// A set that is not `fresh` probes only the fresh kept ones.
fn sweep(sets: &[Vec<u32>], fresh: &[bool], t: f64) -> Vec<(usize, usize)> {
    let terms = sets
        .iter()
        .filter_map(|s| s.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let all_fresh = fresh.iter().all(|&f| f);
    let (mut all, mut fresh_kept) = (Index::new(terms), Index::new(0));
    if !all_fresh {
        fresh_kept = Index::new(terms);
    }
    let mut probe = Probe::new(sets.len());
    let mut out = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let is_fresh = fresh.get(k).copied().unwrap_or(true);
        let index = if is_fresh { &all } else { &fresh_kept };
        match probe.first_match(index, sets, set, t) {
            Some(keeper) => out.push((keeper as usize, k)),
            None => {
                let id = u32::try_from(k).unwrap_or(u32::MAX);
                all.add(id, set, t);
                if is_fresh && !all_fresh {
                    fresh_kept.add(id, set, t);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// Whether the Jaccard similarity of the term sets is at least `t`
    /// (never for an empty set).
    #[allow(clippy::cast_precision_loss)]
    fn similar(a: &[String], b: &[String], t: f64) -> bool {
        let a: HashSet<&String> = a.iter().collect();
        let b: HashSet<&String> = b.iter().collect();
        let shared = a.intersection(&b).count();
        let union = a.union(&b).count();
        !a.is_empty() && !b.is_empty() && shared as f64 >= t * union as f64 - 1e-9
    }

    /// The quadratic reference of the greedy sweep.
    fn brute_force(sets: &[Vec<String>], t: f64) -> Vec<(usize, usize)> {
        let mut kept: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        for (k, set) in sets.iter().enumerate() {
            let found = kept
                .iter()
                .copied()
                .find(|&j| sets.get(j).is_some_and(|o| similar(set, o, t)));
            match found {
                Some(j) => out.push((j, k)),
                None => kept.push(k),
            }
        }
        out
    }

    #[test]
    fn covered_unigrams_go_lone_ones_stay() {
        let terms = ["记忆", "记", "忆", "猫", "tea"].map(String::from).to_vec();
        assert_eq!(without_covered_unigrams(terms), ["记忆", "猫", "tea"]);
    }

    proptest! {
        #[test]
        fn equals_the_quadratic_reference(
            words in prop::collection::vec(prop::collection::vec(0_u8..12, 0..9), 0..40),
            t in prop::sample::select(vec![0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 1.0]),
        ) {
            let sets: Vec<Vec<String>> = words
                .iter()
                .map(|w| w.iter().map(|x| format!("w{x}")).collect())
                .collect();
            let fresh = vec![true; sets.len()];
            prop_assert_eq!(
                near_duplicate_pairs(sets.iter().map(Vec::as_slice), &fresh, t),
                brute_force(&sets, t)
            );
        }
    }
}
