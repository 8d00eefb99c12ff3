//! The fusion ceiling of the `hybrid` retriever: how much of the evidence
//! its two candidate lists hold, and the most that weighted fusion of them
//! could recall if the weight were chosen per question with the answers.
//!
//! It tells apart the two ways a hybrid search can fall short: a fusion
//! that misorders good lists (the best weight per question lies well above
//! the product's fixed weight), or lists that do not hold the evidence
//! near their top (the ceiling itself is low, and only a better model or a
//! re-ranking stage over deeper candidates can help). It uses the answers,
//! so it is a diagnostic, never a retriever.

use std::collections::HashSet;

use agcore::memory::hybrid::{CutRule, SearchReport};
use agcore::memory::retriever::{Fusion, fuse};
use serde::Serialize;

use super::metrics::{ndcg_at, recall_at};

/// Depth of the figures: recall@10 and nDCG@10.
const DEPTH: usize = 10;

/// Lexical weights tried per question: 0, 0.1, …, 1 (the product's 0.5
/// among them).
const WEIGHT_STEPS: u32 = 10;

/// The two ranked candidate lists of one hybrid search, best first, ids
/// as the answers name them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TwoLists {
    /// `(id, BM25 score)`.
    pub lexical: Vec<(String, f64)>,
    /// `(id, dense similarity)`.
    pub dense: Vec<(String, f64)>,
}

impl TwoLists {
    /// The lists a hybrid search fused, from its explained hits (the
    /// candidates a similarity threshold cut before fusion left out).
    pub fn of(report: &SearchReport) -> Self {
        let mut lexical = Vec::new();
        let mut dense = Vec::new();
        for hit in &report.hits {
            let b = &hit.breakdown;
            if let Some(l) = b.lexical {
                lexical.push((l.rank, hit.item.id.clone(), l.score));
            }
            if let Some(d) = b.dense
                && !matches!(b.cut, Some(CutRule::BelowSimilarity { .. }))
            {
                dense.push((d.rank, hit.item.id.clone(), d.score));
            }
        }
        let ranked = |mut list: Vec<(usize, String, f64)>| {
            list.sort_by_key(|(rank, _, _)| *rank);
            list.into_iter().map(|(_, id, s)| (id, s)).collect()
        };
        Self {
            lexical: ranked(lexical),
            dense: ranked(dense),
        }
    }
}

/// Mean ceiling figures over a group of questions.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Ceiling {
    /// The group (`"1-4"` on LoCoMo, `"all"` on BEIR).
    pub label: String,
    /// Questions counted.
    pub questions: usize,
    /// recall@10 of the lexical list alone.
    pub lexical_recall_at_10: f64,
    /// recall@10 of the dense list alone.
    pub dense_recall_at_10: f64,
    /// Recall of the union of both lists' first 10 (up to 20 memories).
    pub union_recall_at_10: f64,
    /// recall@10 of the min–max weighted sum with the best lexical weight
    /// (0, 0.1, …, 1) for each question.
    pub best_weight_recall_at_10: f64,
    /// nDCG@10 of the same, the weight chosen for nDCG.
    pub best_weight_ndcg_at_10: f64,
}

/// Sums the per-question figures of [`Ceiling`].
#[derive(Debug, Clone, Default)]
pub struct CeilingAccumulator {
    n: usize,
    lexical: f64,
    dense: f64,
    union: f64,
    best_recall: f64,
    best_ndcg: f64,
}

impl CeilingAccumulator {
    /// Adds one question.
    pub fn add(&mut self, lists: &TwoLists, relevant: &HashSet<String>) {
        let top = |list: &[(String, f64)]| -> Vec<String> {
            list.iter().take(DEPTH).map(|(id, _)| id.clone()).collect()
        };
        let lexical = top(&lists.lexical);
        let dense = top(&lists.dense);
        let union: Vec<String> = lexical.iter().chain(&dense).cloned().collect();
        self.n += 1;
        self.lexical += recall_at(&lexical, relevant, DEPTH);
        self.dense += recall_at(&dense, relevant, DEPTH);
        self.union += recall_at(&union, relevant, 2 * DEPTH);
        let (mut best_recall, mut best_ndcg) = (0.0f64, 0.0f64);
        for step in 0..=WEIGHT_STEPS {
            let fusion = Fusion::WeightedSum {
                lexical_weight: f64::from(step) / f64::from(WEIGHT_STEPS),
            };
            let ranked: Vec<String> = fuse(&lists.lexical, &lists.dense, fusion)
                .into_iter()
                .take(DEPTH)
                .map(|f| f.id)
                .collect();
            best_recall = best_recall.max(recall_at(&ranked, relevant, DEPTH));
            best_ndcg = best_ndcg.max(ndcg_at(&ranked, relevant, DEPTH));
        }
        self.best_recall += best_recall;
        self.best_ndcg += best_ndcg;
    }

    /// The means, labelled; `None` when no question was added.
    pub fn ceiling(&self, label: &str) -> Option<Ceiling> {
        if self.n == 0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)]
        let mean = |x: f64| x / self.n as f64;
        Some(Ceiling {
            label: label.to_owned(),
            questions: self.n,
            lexical_recall_at_10: mean(self.lexical),
            dense_recall_at_10: mean(self.dense),
            union_recall_at_10: mean(self.union),
            best_weight_recall_at_10: mean(self.best_recall),
            best_weight_ndcg_at_10: mean(self.best_ndcg),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[(&str, f64)]) -> Vec<(String, f64)> {
        items.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect()
    }

    fn set(ids: &[&str]) -> HashSet<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    /// Twelve lexical hits `l0…l11` and twelve dense hits `d0…d11`, each
    /// list's scores falling by one per rank.
    fn lists() -> TwoLists {
        let make = |p: &str| -> Vec<(String, f64)> {
            (0..12)
                .map(|i| (format!("{p}{i}"), 12.0 - f64::from(i)))
                .collect()
        };
        TwoLists {
            lexical: make("l"),
            dense: make("d"),
        }
    }

    #[test]
    fn the_union_counts_both_lists_first_ten() {
        let mut acc = CeilingAccumulator::default();
        acc.add(&lists(), &set(&["l9", "d9", "l11"]));
        let c = acc.ceiling("all").unwrap();
        assert!((c.lexical_recall_at_10 - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.dense_recall_at_10 - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.union_recall_at_10 - 2.0 / 3.0).abs() < 1e-12);
        // No single weight puts l9 and d9 (rank 10 in each list) in one top 10.
        assert!((c.best_weight_recall_at_10 - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_best_weight_is_chosen_per_question() {
        let mut acc = CeilingAccumulator::default();
        // Ranks 10 of the lexical list, then of the dense one: the equal
        // weight interleaves the lists and finds neither; weight 1 finds the
        // first, weight 0 the second.
        acc.add(&lists(), &set(&["l9"]));
        acc.add(&lists(), &set(&["d9"]));
        let c = acc.ceiling("1-4").unwrap();
        assert_eq!(c.questions, 2);
        assert!((c.best_weight_recall_at_10 - 1.0).abs() < 1e-12);
        assert!(c.best_weight_ndcg_at_10 > 0.0);
        let equal: Vec<String> = fuse(
            &lists().lexical,
            &lists().dense,
            Fusion::WeightedSum {
                lexical_weight: 0.5,
            },
        )
        .into_iter()
        .take(DEPTH)
        .map(|f| f.id)
        .collect();
        assert_eq!(recall_at(&equal, &set(&["l9", "d9"]), DEPTH), 0.0);
    }

    #[test]
    fn a_missing_list_still_counts() {
        let mut acc = CeilingAccumulator::default();
        let only_dense = TwoLists {
            lexical: Vec::new(),
            dense: list(&[("a", 0.9), ("b", 0.8)]),
        };
        acc.add(&only_dense, &set(&["b"]));
        let c = acc.ceiling("all").unwrap();
        assert_eq!(c.lexical_recall_at_10, 0.0);
        assert_eq!(c.dense_recall_at_10, 1.0);
        assert_eq!(c.best_weight_recall_at_10, 1.0);
        assert!(CeilingAccumulator::default().ceiling("all").is_none());
    }
}
