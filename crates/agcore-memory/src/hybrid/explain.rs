//! Why a memory was recalled: the score breakdown of a hybrid search hit.

use serde::{Deserialize, Serialize};

use crate::MemoryItem;
use crate::retriever::ListScore;

/// The rule that removed a candidate from the results.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum CutRule {
    /// Its dense similarity was below [`HybridConfig::min_similarity`](super::HybridConfig::min_similarity)
    /// and no lexical match kept it.
    BelowSimilarity {
        /// The threshold.
        min: f32,
    },
    /// Its fused score was below the search's `min_score`.
    BelowMinScore {
        /// The threshold.
        min: f64,
    },
    /// It ranked below the search's `limit`.
    BeyondLimit {
        /// The limit.
        limit: usize,
    },
}

/// How one hit was scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBreakdown {
    /// Its BM25 score and rank in the lexical list, when it matched words.
    pub lexical: Option<ListScore>,
    /// Its cosine similarity and rank in the dense list, when it had a vector
    /// among the nearest.
    pub dense: Option<ListScore>,
    /// The fused score before group evidence and time decay.
    pub fused: f64,
    /// What group evidence added to the fused score
    /// ([`GroupEvidence`](super::GroupEvidence); 0 without it).
    #[serde(default)]
    pub group: f64,
    /// The time-decay factor applied (1.0 without decay).
    pub decay: f64,
    /// The final score (`(fused + group) × decay`); results are ordered by it.
    pub score: f64,
    /// Why it is not among the results (`None` for a result).
    pub cut: Option<CutRule>,
}

/// A search candidate with its breakdown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explained<T> {
    /// The memory.
    pub item: T,
    /// How it was scored.
    pub breakdown: ScoreBreakdown,
}

/// A [`MemoryItem`] candidate of
/// [`HybridStore::search_explained`](super::HybridStore::search_explained).
pub type ExplainedHit = Explained<MemoryItem>;

/// What a search did besides ranking: whether the dense list was used and,
/// when it could not be, why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchReport<T = MemoryItem> {
    /// Every candidate of either list, results first (best first), then the
    /// cut ones (best first).
    pub hits: Vec<Explained<T>>,
    /// Why the dense list is missing (no vectors yet, embedding server down),
    /// when the mode asked for it.
    pub dense_unavailable: Option<String>,
    /// How many stored vectors moved the query vector (Rocchio feedback,
    /// [`DenseFeedback`](super::DenseFeedback)); 0 when it is off or none
    /// of the first results had a vector.
    #[serde(default)]
    pub feedback_vectors: usize,
    /// Time spent embedding the query, in microseconds.
    pub embed_micros: u64,
    /// Time spent searching both lists and fusing, in microseconds.
    pub search_micros: u64,
}

impl<T> Default for SearchReport<T> {
    fn default() -> Self {
        Self {
            hits: Vec::new(),
            dense_unavailable: None,
            feedback_vectors: 0,
            embed_micros: 0,
            search_micros: 0,
        }
    }
}

impl<T> SearchReport<T> {
    /// The results only (hits with no cut rule).
    pub fn results(&self) -> impl Iterator<Item = &Explained<T>> {
        self.hits.iter().filter(|h| h.breakdown.cut.is_none())
    }

    /// The results only, by value.
    pub fn into_results(self) -> impl Iterator<Item = Explained<T>> {
        self.hits.into_iter().filter(|h| h.breakdown.cut.is_none())
    }
}
