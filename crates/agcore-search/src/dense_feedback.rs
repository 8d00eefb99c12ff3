//! Pseudo-relevance feedback on the query vector (Rocchio): the dense
//! search runs again from the query moved towards the first results.

use serde::{Deserialize, Serialize};

use crate::vector::l2_normalize;

/// Rocchio pseudo-relevance feedback for a dense list: after a first
/// ranking, the stored vectors of its `depth` best results are averaged
/// and the query vector becomes `alpha · q + beta · mean(d₁ … d_depth)`
/// (then L2-normalised, [`DenseFeedback::moved_query`]); the dense search
/// runs again from it and its list replaces the first one before the final
/// ranking.
///
/// The first ranking is the caller's: `agcore-memory`'s hybrid search uses
/// the fused lists, so the lexical hits steer the dense search too (a
/// query's words find the turns that name them, and their vectors carry
/// the meaning the short query lacks); in the dense mode the dense list
/// (plain vector PRF).
///
/// Source: Rocchio (1971), "Relevance feedback in information retrieval";
/// for dense retrievers Li et al. (2023), "Pseudo Relevance Feedback with
/// Deep Language Models and Dense Retrievers: Successes and Pitfalls", ACM
/// TOIS 41(3), whose reported setting (depth 5, α = 0.4, β = 0.6, as in
/// Pyserini's vector PRF) are the defaults here — not values fitted to any
/// evaluation set.
///
/// Cost: one read of `depth` stored vectors and a second vector search
/// (own and window vectors) per query; no second query embedding.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct DenseFeedback {
    /// Results of the first ranking whose vectors are averaged (≥ 1).
    pub depth: usize,
    /// Weight of the original query vector (≥ 0).
    pub alpha: f32,
    /// Weight of the mean of the feedback vectors (≥ 0).
    pub beta: f32,
}

impl Default for DenseFeedback {
    /// Depth 5, `alpha` 0.4, `beta` 0.6 (Li et al. 2023, Pyserini).
    fn default() -> Self {
        Self {
            depth: 5,
            alpha: 0.4,
            beta: 0.6,
        }
    }
}

impl DenseFeedback {
    /// Sets the depth (at least 1).
    pub fn with_depth(mut self, depth: usize) -> Self {
        self.depth = depth.max(1);
        self
    }

    /// Sets the weights of the query and of the feedback mean (negative
    /// and non-finite values count as 0).
    pub fn with_weights(mut self, alpha: f32, beta: f32) -> Self {
        let clean = |w: f32| if w.is_finite() { w.max(0.0) } else { 0.0 };
        self.alpha = clean(alpha);
        self.beta = clean(beta);
        self
    }

    /// The moved query: `alpha · query + beta · mean(docs)`, L2-normalised.
    /// Vectors of another length than `query` are skipped; `None` when no
    /// document vector is usable or the result has no direction (the
    /// caller then keeps its first ranking).
    pub fn moved_query(&self, query: &[f32], docs: &[Vec<f32>]) -> Option<Vec<f32>> {
        let usable: Vec<&Vec<f32>> = docs.iter().filter(|d| d.len() == query.len()).collect();
        if usable.is_empty() {
            return None;
        }
        let share = self.beta / usable.len() as f32;
        let mut moved: Vec<f32> = query.iter().map(|x| self.alpha * x).collect();
        for doc in usable {
            for (m, x) in moved.iter_mut().zip(doc) {
                *m += share * x;
            }
        }
        let norm = l2_normalize(&mut moved);
        (norm.is_finite() && norm > f32::EPSILON).then_some(moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_moves_towards_the_mean_of_the_documents() {
        let fb = DenseFeedback::default();
        let moved = fb
            .moved_query(
                &[1.0, 0.0, 0.0],
                &[vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]],
            )
            .unwrap_or_default();
        // 0.4 · q + 0.6 · (0, .5, .5) = (.4, .3, .3), normalised.
        let norm = (0.16_f32 + 0.09 + 0.09).sqrt();
        let want = [0.4 / norm, 0.3 / norm, 0.3 / norm];
        assert_eq!(moved.len(), 3);
        for (got, want) in moved.iter().zip(want) {
            assert!((got - want).abs() < 1e-6, "{moved:?}");
        }
    }

    #[test]
    fn no_usable_document_or_no_direction_keeps_the_first_ranking() {
        let fb = DenseFeedback::default();
        assert_eq!(fb.moved_query(&[1.0, 0.0], &[]), None);
        assert_eq!(fb.moved_query(&[1.0, 0.0], &[vec![1.0, 0.0, 0.0]]), None);
        let opposite = DenseFeedback::default().with_weights(0.5, 0.5);
        assert_eq!(opposite.moved_query(&[1.0, 0.0], &[vec![-1.0, 0.0]]), None);
    }

    #[test]
    fn settings_are_clamped() {
        let fb = DenseFeedback::default()
            .with_depth(0)
            .with_weights(f32::NAN, -1.0);
        assert_eq!((fb.depth, fb.alpha, fb.beta), (1, 0.0, 0.0));
    }
}
