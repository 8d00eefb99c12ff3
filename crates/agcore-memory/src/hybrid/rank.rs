//! The ranking stage shared by every hybrid search: fusion, similarity
//! threshold, time decay, score threshold and limit, with a breakdown per hit.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::{CutRule, Explained, HybridConfig, ScoreBreakdown};
use crate::retriever::{ListScore, fuse};

/// The two lists of one search, best first, and the candidates they name.
pub(crate) struct Lists<T> {
    /// `(id, BM25 score)`.
    pub lexical: Vec<(String, f64)>,
    /// `(id, cosine similarity)`.
    pub dense: Vec<(String, f64)>,
    /// Every candidate of either list, by id.
    pub items: HashMap<String, T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Self {
            lexical: Vec::new(),
            dense: Vec::new(),
            items: HashMap::new(),
        }
    }
}

/// Ranks `lists` by `config`; `created_at` gives an item's age for the time
/// decay. Results first (best first), then the cut candidates.
pub(crate) fn rank<T>(
    mut lists: Lists<T>,
    config: &HybridConfig,
    limit: usize,
    min_score: Option<f64>,
    created_at: impl Fn(&T) -> DateTime<Utc>,
) -> Vec<Explained<T>> {
    let mut below: Vec<(String, f64)> = Vec::new();
    if let Some(min) = config.min_similarity {
        let (kept, cut): (Vec<_>, Vec<_>) = lists
            .dense
            .into_iter()
            .partition(|(_, score)| *score >= f64::from(min));
        lists.dense = kept;
        below = cut;
    }
    let now = Utc::now();
    let mut hits: Vec<Explained<T>> = fuse(&lists.lexical, &lists.dense, config.fusion)
        .into_iter()
        .filter_map(|f| {
            let item = lists.items.remove(&f.id)?;
            let decay = config.half_life.map_or(1.0, |half| {
                let age = (now - created_at(&item)).num_milliseconds().max(0) as f64 / 1000.0;
                (-age / half.as_secs_f64().max(f64::MIN_POSITIVE)).exp2()
            });
            Some(Explained {
                item,
                breakdown: ScoreBreakdown {
                    lexical: f.lexical,
                    dense: f.dense,
                    fused: f.score,
                    decay,
                    score: f.score * decay,
                    cut: None,
                },
            })
        })
        .collect();
    hits.sort_by(|a, b| b.breakdown.score.total_cmp(&a.breakdown.score));
    let mut kept = 0usize;
    for hit in &mut hits {
        if let Some(min) = min_score.filter(|min| hit.breakdown.score < *min) {
            hit.breakdown.cut = Some(CutRule::BelowMinScore { min });
        } else if kept >= limit {
            hit.breakdown.cut = Some(CutRule::BeyondLimit { limit });
        } else {
            kept += 1;
        }
    }
    if let Some(min) = config.min_similarity {
        let first_rank = lists.dense.len();
        for (i, (id, score)) in below.into_iter().enumerate() {
            if let Some(item) = lists.items.remove(&id) {
                hits.push(Explained {
                    item,
                    breakdown: ScoreBreakdown {
                        lexical: None,
                        dense: Some(ListScore {
                            score,
                            rank: first_rank + i + 1,
                        }),
                        fused: 0.0,
                        decay: 1.0,
                        score: 0.0,
                        cut: Some(CutRule::BelowSimilarity { min }),
                    },
                });
            }
        }
    }
    // Stable: results keep their order ahead of the cut candidates.
    hits.sort_by_key(|h| h.breakdown.cut.is_some());
    hits
}
