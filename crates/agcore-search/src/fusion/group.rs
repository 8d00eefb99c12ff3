//! Group evidence: cluster-based score smoothing of fused candidates over
//! the groups they belong to.

use std::collections::HashMap;

/// Cluster-based score smoothing (the cluster hypothesis; Liu & Croft 2004,
/// "Cluster-based retrieval using language models", SIGIR; Kurland & Lee
/// 2004, "Corpus structure, language models, and ad hoc information
/// retrieval", SIGIR): each group `g` gets `S(g) = Σ fused(d)` over its
/// candidates `d`, and a candidate of group `g` receives
///
/// `weight · max_d′ fused(d′) · S(g) / max_g′ S(g′)`
///
/// — the best group adds `weight` times the best fused score, so the term
/// has the fused scores' scale whatever the fusion method.
///
/// `fused[i]` is candidate `i`'s fused score and `groups[i]` its group;
/// returns the amount added to each entry of `groups`, in the same order
/// (0 for candidates without a group; scores past the end of `groups` are
/// ignored). Scores
/// that are not finite or below 0 count as 0; `weight` is clamped to
/// `[0, 1]` (not finite: 0). Every bonus is finite, ≥ 0 and at most
/// `weight · max fused`.
///
/// # Examples
/// ```
/// use agcore_search::fusion::group_bonuses;
/// let g = |s: &str| Some(s.to_owned());
/// let bonus = group_bonuses(0.5, &[0.9, 0.6, 0.6], &[g("a"), g("b"), g("b")]);
/// assert!((bonus[1] - 0.5 * 0.9).abs() < 1e-12); // "b" holds the most evidence (1.2)
/// ```
pub fn group_bonuses(weight: f64, fused: &[f64], groups: &[Option<String>]) -> Vec<f64> {
    let clean = |s: f64| if s.is_finite() { s.max(0.0) } else { 0.0 };
    let mut sums: HashMap<&str, f64> = HashMap::new();
    for (score, group) in fused.iter().zip(groups) {
        if let Some(g) = group {
            *sums.entry(g.as_str()).or_insert(0.0) += clean(*score);
        }
    }
    let best_group = sums.values().copied().fold(0.0, f64::max);
    let best = fused.iter().copied().map(clean).fold(0.0, f64::max);
    let weight = if weight.is_finite() {
        weight.clamp(0.0, 1.0)
    } else {
        0.0
    };
    groups
        .iter()
        .map(|group| match group {
            Some(g) if best_group > 0.0 => {
                let sum = sums.get(g.as_str()).copied().unwrap_or(0.0);
                weight * best * sum / best_group
            }
            _ => 0.0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn g(name: &str) -> Option<String> {
        Some(name.to_owned())
    }

    #[test]
    fn the_group_with_more_evidence_lifts_its_members() {
        let e = 0.5;
        // a: 0.9 alone in its group; b and c share a group worth 1.2.
        let bonus = group_bonuses(e, &[0.9, 0.6, 0.6, 0.5], &[g("a"), g("b"), g("b"), None]);
        assert!((bonus[1] - 0.5 * 0.9).abs() < 1e-12, "{bonus:?}");
        assert!(
            (bonus[0] - 0.5 * 0.9 * 0.9 / 1.2).abs() < 1e-12,
            "{bonus:?}"
        );
        assert_eq!(bonus[1], bonus[2]);
        assert_eq!(bonus[3], 0.0);
        // The lone best stays first here (1.2375 against 1.05) …
        assert!(0.9 + bonus[0] > 0.6 + bonus[1]);
        // … but two strong members of one group overtake it.
        let bonus = group_bonuses(e, &[0.9, 0.8, 0.8], &[g("a"), g("b"), g("b")]);
        assert!(0.8 + bonus[1] > 0.9 + bonus[0], "{bonus:?}");
    }

    #[test]
    fn without_groups_or_weight_nothing_changes() {
        let e = 0.5;
        assert_eq!(group_bonuses(e, &[1.0, 0.5], &[None, None]), vec![0.0, 0.0]);
        let off = 0.0;
        assert_eq!(
            group_bonuses(off, &[1.0, 0.5], &[g("a"), g("a")]),
            vec![0.0, 0.0]
        );
        assert!(group_bonuses(e, &[], &[]).is_empty());
    }

    #[test]
    fn the_term_scales_with_the_fused_scores() {
        let e = 0.5;
        let groups = [g("a"), g("b"), g("b")];
        let small = group_bonuses(e, &[0.03, 0.02, 0.01], &groups);
        let large = group_bonuses(e, &[3.0, 2.0, 1.0], &groups);
        for (s, l) in small.iter().zip(&large) {
            assert!((s * 100.0 - l).abs() < 1e-9, "{small:?} {large:?}");
        }
    }

    proptest! {
        #[test]
        fn bonuses_are_bounded_and_finite(
            scores in proptest::collection::vec(prop_oneof![-1.0f64..2.0, Just(f64::NAN), Just(f64::INFINITY)], 0..40),
            groups in proptest::collection::vec(proptest::option::of(0u8..4), 0..40),
            weight in 0.0f64..1.0,
        ) {
            let n = scores.len().min(groups.len());
            let groups: Vec<Option<String>> = groups[..n].iter().map(|g| g.map(|g| g.to_string())).collect();

            let bonus = group_bonuses(weight, &scores[..n], &groups);
            let best = scores[..n].iter().copied().filter(|s| s.is_finite()).fold(0.0, f64::max);
            prop_assert_eq!(bonus.len(), n);
            for (b, group) in bonus.iter().zip(&groups) {
                prop_assert!(b.is_finite() && *b >= 0.0 && *b <= weight * best + 1e-12);
                if group.is_none() { prop_assert_eq!(*b, 0.0); }
            }
        }
    }
}
