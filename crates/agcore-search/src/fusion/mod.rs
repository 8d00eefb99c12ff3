//! Rank fusion: combining a lexical and a dense ranked list into one —
//! reciprocal rank fusion and convex combinations of normalised scores
//! (min–max, theoretical-minimum–max, z-score); group evidence over the
//! fused list ([`group_bonuses`]), time decay ([`half_life_decay`]) and the
//! own-plus-window similarity of contextual embeddings ([`combine_window`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

mod group;
mod window;

pub use group::group_bonuses;
pub use window::{combine_window, half_life_decay};

/// The rank offset `k` of reciprocal rank fusion: 60, the constant of
/// Cormack, Clarke & Büttcher (2009), used by [`Fusion::rrf`].
pub const RRF_K: f64 = 60.0;

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
    /// The convex combination with z-score normalisation (Montague &
    /// Aslam 2001, "Relevance Score Normalization for Metasearch", CIKM:
    /// zero mean, unit variance): each score minus its list's lowest,
    /// divided by the list's standard deviation — the z-score shifted so
    /// that a document missing from a list (0 there) ranks as that list's
    /// lowest, as with min–max. Against min–max it weighs each list by
    /// range / standard deviation: a list whose best scores stand out from
    /// the rest counts more than one whose scores are even (for lists of
    /// more than a few candidates). `agcore eval` measured it above
    /// min–max on a Chinese dialogue set (e5), level on LoCoMo with e5 and
    /// a little below it on LoCoMo with MiniLM.
    ZScore {
        /// Weight of the lexical list, in `[0, 1]`.
        lexical_weight: f64,
    },
}

impl Fusion {
    /// Reciprocal rank fusion with the paper's `k` ([`RRF_K`]).
    pub fn rrf() -> Self {
        Self::Rrf { k: RRF_K }
    }
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
///
/// # Examples
/// ```
/// use agcore_search::{Fusion, fuse};
/// let lexical = [("a".to_owned(), 7.5), ("b".to_owned(), 2.0)];
/// let dense = [("b".to_owned(), 0.9), ("c".to_owned(), 0.4)];
/// let fused = fuse(&lexical, &dense, Fusion::rrf());
/// assert_eq!(fused[0].id, "b"); // in both lists
/// assert_eq!(fused.len(), 3);
/// ```
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
    let spread = match fusion {
        Fusion::ZScore { .. } => deviation(list),
        _ => 0.0,
    };
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
            Fusion::ZScore { lexical_weight } => {
                let normalised = if spread > 0.0 {
                    (score - lo) / spread
                } else {
                    1.0
                };
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

/// The population standard deviation of the list's finite scores (0 for
/// fewer than two).
fn deviation(list: &[(String, f64)]) -> f64 {
    let finite: Vec<f64> = list
        .iter()
        .map(|(_, s)| *s)
        .filter(|s| s.is_finite())
        .collect();
    if finite.len() < 2 {
        return 0.0;
    }
    let n = finite.len() as f64;
    let mean = finite.iter().sum::<f64>() / n;
    (finite.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n).sqrt()
}

fn bounds(list: &[(String, f64)]) -> (f64, f64) {
    let finite = list.iter().map(|(_, s)| *s).filter(|s| s.is_finite());
    let lo = finite.clone().fold(f64::INFINITY, f64::min);
    let hi = finite.fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) }
}

#[cfg(test)]
mod tests;
