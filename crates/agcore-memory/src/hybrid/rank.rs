//! The ranking stage shared by every hybrid search: fusion, similarity
//! threshold, group evidence, time decay, score threshold and limit, with a
//! breakdown per hit.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::{CutRule, Explained, GroupEvidence, HybridConfig, ScoreBreakdown};
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

/// An item's group, for group evidence.
pub(crate) type GroupOf<'a, T> = &'a dyn Fn(&T) -> Option<String>;

/// How an item is known to [`rank`]: its age for the time decay and, with
/// group evidence, its group.
pub(crate) struct ItemKeys<'a, T> {
    /// When the item was created.
    pub created_at: &'a dyn Fn(&T) -> DateTime<Utc>,
    /// Group evidence to apply and the item's group (`None`: no evidence).
    pub group: Option<(&'a GroupEvidence, GroupOf<'a, T>)>,
}

/// Ranks `lists` by `config` (its group evidence as `keys.group` says).
/// Results first (best first), then the cut candidates.
pub(crate) fn rank<T>(
    mut lists: Lists<T>,
    config: &HybridConfig,
    limit: usize,
    min_score: Option<f64>,
    keys: ItemKeys<'_, T>,
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
    let fused: Vec<_> = fuse(&lists.lexical, &lists.dense, config.fusion)
        .into_iter()
        .filter_map(|f| lists.items.remove(&f.id).map(|item| (f, item)))
        .collect();
    let bonuses = match keys.group {
        Some((evidence, group_of)) => {
            let scores: Vec<f64> = fused.iter().map(|(f, _)| f.score).collect();
            let groups: Vec<Option<String>> =
                fused.iter().map(|(_, item)| group_of(item)).collect();
            evidence.bonuses(&scores, &groups)
        }
        None => vec![0.0; fused.len()],
    };
    let mut hits: Vec<Explained<T>> = fused
        .into_iter()
        .zip(bonuses)
        .map(|((f, item), group)| {
            let decay = config.half_life.map_or(1.0, |half| {
                let age =
                    (now - (keys.created_at)(&item)).num_milliseconds().max(0) as f64 / 1000.0;
                agcore_search::fusion::half_life_decay(age, half.as_secs_f64())
            });
            Explained {
                item,
                breakdown: ScoreBreakdown {
                    lexical: f.lexical,
                    dense: f.dense,
                    fused: f.score,
                    group,
                    decay,
                    score: (f.score + group) * decay,
                    cut: None,
                },
            }
        })
        .collect();
    hits.sort_by(|a, b| b.breakdown.score.total_cmp(&a.breakdown.score));
    mark_cuts(&mut hits, limit, min_score);
    if let Some(min) = config.min_similarity {
        let first_rank = lists.dense.len();
        hits.extend(below_similarity(below, &mut lists.items, first_rank, min));
    }
    // Stable: results keep their order ahead of the cut candidates.
    hits.sort_by_key(|h| h.breakdown.cut.is_some());
    hits
}

/// Marks the hits (sorted best first) below `min_score` and those beyond
/// `limit` results.
fn mark_cuts<T>(hits: &mut [Explained<T>], limit: usize, min_score: Option<f64>) {
    let mut kept = 0usize;
    for hit in hits {
        if let Some(min) = min_score.filter(|min| hit.breakdown.score < *min) {
            hit.breakdown.cut = Some(CutRule::BelowMinScore { min });
        } else if kept >= limit {
            hit.breakdown.cut = Some(CutRule::BeyondLimit { limit });
        } else {
            kept += 1;
        }
    }
}

/// The dense candidates cut by `min_similarity` (`below`, in dense-list
/// order after the `first_rank` kept ones), as cut hits.
fn below_similarity<T>(
    below: Vec<(String, f64)>,
    items: &mut HashMap<String, T>,
    first_rank: usize,
    min: f32,
) -> Vec<Explained<T>> {
    below
        .into_iter()
        .enumerate()
        .filter_map(|(i, (id, score))| {
            let item = items.remove(&id)?;
            Some(Explained {
                item,
                breakdown: ScoreBreakdown {
                    lexical: None,
                    dense: Some(ListScore {
                        score,
                        rank: first_rank + i + 1,
                    }),
                    fused: 0.0,
                    group: 0.0,
                    decay: 1.0,
                    score: 0.0,
                    cut: Some(CutRule::BelowSimilarity { min }),
                },
            })
        })
        .collect()
}
