//! Rank fusion: combining a lexical and a dense ranked list into one.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// How two ranked lists (lexical BM25, dense cosine) become one score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Fusion {
    /// Reciprocal rank fusion: `Σ 1 / (k + rank)` over the lists a document
    /// appears in, ranks from 1 (Cormack, Clarke & Büttcher 2009,
    /// "Reciprocal Rank Fusion outperforms Condorcet and individual rank
    /// learning methods", SIGIR). Uses ranks only, so the two score scales
    /// never need calibrating. `k = 60` is the paper's constant.
    Rrf {
        /// The rank offset `k` (> 0); larger flattens the top of each list.
        k: f64,
    },
    /// A convex combination of min–max normalised scores:
    /// `w · lexical′ + (1 − w) · dense′`, where each list's scores are mapped
    /// to `[0, 1]` over that list and a document missing from a list gets 0
    /// there (Bruch, Gai & Ingber 2023, "An Analysis of Fusion Functions for
    /// Hybrid Retrieval", ACM TOIS 42(1)).
    WeightedSum {
        /// Weight of the lexical list, in `[0, 1]`.
        lexical_weight: f64,
    },
    /// The convex combination with theoretical-minimum–max normalisation
    /// (Bruch, Gai & Ingber 2023's TM2C2): each score divided by its list's
    /// best, with 0 as the lower bound — the least a kept score can be
    /// (BM25 is never negative; dense hits at or below cosine 0 are cut) —
    /// instead of the list's observed minimum, which moves with how deep
    /// the list is cut. Scores below 0 count as 0. It suits models whose
    /// cosines spread from 0; with compressed ones (E5: unrelated text near
    /// 0.7) the dense scores barely differ once divided by the best, and the
    /// lexical list decides. `agcore eval` measured it below min–max on
    /// LoCoMo (MiniLM) and on a Chinese dialogue set (e5).
    TheoreticalMinMax {
        /// Weight of the lexical list, in `[0, 1]`.
        lexical_weight: f64,
    },
}

impl Default for Fusion {
    /// `WeightedSum { lexical_weight: 0.5 }`: equal weights, not fitted to
    /// any data set. Bruch, Gai & Ingber (2023) find the convex combination
    /// of normalised scores ahead of RRF in and out of domain; agcore's own
    /// ablation agrees (`crates/agcore-cli/README.md`, `agcore eval`).
    fn default() -> Self {
        Self::WeightedSum {
            lexical_weight: 0.5,
        }
    }
}

/// A document's place in one input list.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ListScore {
    /// The score the list gave (BM25, cosine similarity).
    pub score: f64,
    /// 1-based rank in that list.
    pub rank: usize,
}

/// One fused document with what each list contributed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fused {
    /// Document id.
    pub id: String,
    /// Its place in the lexical list, if it was there.
    pub lexical: Option<ListScore>,
    /// Its place in the dense list, if it was there.
    pub dense: Option<ListScore>,
    /// The fused score (higher is better).
    pub score: f64,
}

/// Fuses two lists of `(id, score)`, each sorted best first (duplicate ids
/// keep their first, best place). Returns every document of either list,
/// best first, ties broken by id. Scores that are not finite count as the
/// list's lowest.
pub fn fuse(lexical: &[(String, f64)], dense: &[(String, f64)], fusion: Fusion) -> Vec<Fused> {
    let mut by_id: HashMap<&str, Fused> = HashMap::new();
    place(lexical, true, fusion, &mut by_id);
    place(dense, false, fusion, &mut by_id);
    let mut fused: Vec<Fused> = by_id.into_values().collect();
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    fused
}

/// Adds one list's contribution to `by_id`.
fn place<'a>(
    list: &'a [(String, f64)],
    is_lexical: bool,
    fusion: Fusion,
    by_id: &mut HashMap<&'a str, Fused>,
) {
    let (lo, hi) = bounds(list);
    for (i, (id, score)) in list.iter().enumerate() {
        let entry = by_id.entry(id.as_str()).or_insert_with(|| Fused {
            id: id.clone(),
            lexical: None,
            dense: None,
            score: 0.0,
        });
        let slot = if is_lexical {
            &mut entry.lexical
        } else {
            &mut entry.dense
        };
        if slot.is_some() {
            continue;
        }
        let rank = i + 1;
        let score = if score.is_finite() { *score } else { lo };
        *slot = Some(ListScore { score, rank });
        entry.score += match fusion {
            Fusion::Rrf { k } => 1.0 / (k.max(f64::MIN_POSITIVE) + rank as f64),
            Fusion::WeightedSum { lexical_weight } => {
                let normalised = if hi > lo {
                    (score - lo) / (hi - lo)
                } else {
                    1.0
                };
                list_weight(lexical_weight, is_lexical) * normalised
            }
            Fusion::TheoreticalMinMax { lexical_weight } => {
                let normalised = if hi > 0.0 { score.max(0.0) / hi } else { 0.0 };
                list_weight(lexical_weight, is_lexical) * normalised
            }
        };
    }
}

/// The weight of one list in a convex combination: `w` (clamped to
/// `[0, 1]`) for the lexical list, `1 − w` for the dense one.
fn list_weight(lexical_weight: f64, is_lexical: bool) -> f64 {
    let w = lexical_weight.clamp(0.0, 1.0);
    if is_lexical { w } else { 1.0 - w }
}

fn bounds(list: &[(String, f64)]) -> (f64, f64) {
    let finite = list.iter().map(|(_, s)| *s).filter(|s| s.is_finite());
    let lo = finite.clone().fold(f64::INFINITY, f64::min);
    let hi = finite.fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn list(ids: &[&str]) -> Vec<(String, f64)> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| ((*id).to_owned(), 10.0 - i as f64))
            .collect()
    }

    #[test]
    fn rrf_rewards_agreement() {
        let fused = fuse(
            &list(&["a", "b", "c"]),
            &list(&["b", "d", "a"]),
            Fusion::default(),
        );
        assert_eq!(fused[0].id, "b"); // 1/62 + 1/61 > 1/61 + 1/63
        assert_eq!(fused[1].id, "a");
        assert_eq!(fused.len(), 4);
        assert_eq!(fused[0].lexical.unwrap().rank, 2);
        assert_eq!(fused[0].dense.unwrap().rank, 1);
    }

    #[test]
    fn weighted_sum_extremes_follow_one_list() {
        let lex = list(&["a", "b", "c"]);
        let dense = list(&["c", "b", "a"]);
        let only_lex = fuse(
            &lex,
            &dense,
            Fusion::WeightedSum {
                lexical_weight: 1.0,
            },
        );
        assert_eq!(only_lex[0].id, "a");
        let only_dense = fuse(
            &lex,
            &dense,
            Fusion::WeightedSum {
                lexical_weight: 0.0,
            },
        );
        assert_eq!(only_dense[0].id, "c");
    }

    #[test]
    fn theoretical_min_max_keeps_a_weak_list_weak() {
        // Min–max would map the dense list's 0.30 … 0.31 onto 0 … 1; with
        // 0 as the lower bound they stay close together, and the lexical
        // list's clear order decides.
        let lex = vec![("a".to_owned(), 9.0), ("b".to_owned(), 3.0)];
        let dense = vec![("b".to_owned(), 0.31), ("a".to_owned(), 0.30)];
        let tmm = fuse(
            &lex,
            &dense,
            Fusion::TheoreticalMinMax {
                lexical_weight: 0.5,
            },
        );
        assert_eq!(tmm[0].id, "a");
        assert!((tmm[0].score - (0.5 + 0.5 * 0.30 / 0.31)).abs() < 1e-12);
        let minmax = fuse(
            &lex,
            &dense,
            Fusion::WeightedSum {
                lexical_weight: 0.5,
            },
        );
        assert_eq!((minmax[0].score, minmax[1].score), (0.5, 0.5));
    }

    #[test]
    fn duplicates_and_nan_do_not_break_it() {
        let lex = vec![
            ("a".to_owned(), f64::NAN),
            ("a".to_owned(), 3.0),
            ("b".to_owned(), 1.0),
        ];
        let fused = fuse(
            &lex,
            &[],
            Fusion::WeightedSum {
                lexical_weight: 0.5,
            },
        );
        assert_eq!(fused.len(), 2);
        assert!(fused.iter().all(|f| f.score.is_finite()));
    }

    proptest! {
        #[test]
        fn fused_is_sorted_finite_and_complete(
            a in proptest::collection::vec(("[a-e]", -5.0f64..5.0), 0..8),
            b in proptest::collection::vec(("[c-h]", -1.0f64..1.0), 0..8),
            w in 0.0f64..1.0,
            method in 0u8..3,
        ) {
            let fusion = match method {
                0 => Fusion::Rrf { k: 60.0 },
                1 => Fusion::WeightedSum { lexical_weight: w },
                _ => Fusion::TheoreticalMinMax { lexical_weight: w },
            };
            let fused = fuse(&a, &b, fusion);
            let mut ids: Vec<&str> = a.iter().chain(b.iter()).map(|(id, _)| id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            prop_assert_eq!(fused.len(), ids.len());
            for pair in fused.windows(2) {
                prop_assert!(pair[0].score >= pair[1].score);
            }
            prop_assert!(fused.iter().all(|f| f.score.is_finite() && f.score >= 0.0));
        }
    }
}
