//! Group evidence: a fused candidate borrows from the other candidates of
//! its group (a dialogue session), after fusion.

use serde::{Deserialize, Serialize};

use crate::MemoryItem;
use crate::retriever::group_value;

/// Cluster-based score smoothing over groups of memories: memories of a
/// group that holds many good candidates rank higher, so the turns of the
/// conversation a question is about come before look-alike turns of other
/// conversations (the cluster hypothesis; Liu & Croft 2004, "Cluster-based
/// retrieval using language models", SIGIR; Kurland & Lee 2004, "Corpus
/// structure, language models, and ad hoc information retrieval", SIGIR —
/// here the clusters are the groups the memories already name).
///
/// After fusion, each group `g` (memories sharing the metadata value
/// `group_key`, as for [`ContextField`](crate::retriever::ContextField))
/// gets `S(g) = Σ fused(d)` over the candidates `d` of `g` (both lists'
/// candidates, before the limit). A candidate of group `g` then scores
///
/// `fused(d) + weight · max_d′ fused(d′) · S(g) / max_g′ S(g′)`
///
/// — the best group adds `weight` times the best fused score, so the term
/// has the fused scores' scale whatever the fusion method. With reciprocal
/// rank fusion, whose scores lie in a narrow band, it weighs relatively
/// more (on LoCoMo it keeps RRF's recall@10 and lowers its nDCG@10: use a
/// lower weight there). Candidates without a group get nothing. The
/// search's limit applies afterwards.
///
/// Applies to [`HybridStore`](super::HybridStore) searches in the hybrid
/// and dense modes; a search in lexical mode (and a `HybridStore` without a
/// dense index) stays the inner store's BM25 ranking. Defaults: group key
/// `"session"`, weight 0.5 (the constant of the context fields, not fitted
/// to an evaluation set).
///
/// Off unless configured ([`HybridConfig::group_evidence`](super::HybridConfig::group_evidence)):
/// `agcore eval` measures +.024 recall@10 on LoCoMo with e5 (+.010 with
/// MiniLM) but −.031 on the Chinese dialogue set, where a conversation has
/// only five sessions and the candidates cover most of it, so the term
/// mostly favours long sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct GroupEvidence {
    /// Metadata key naming a memory's group. Default `"session"`.
    pub group_key: String,
    /// Weight of the group's evidence against the fused score, in `[0, 1]`.
    /// Default 0.5.
    pub weight: f64,
}

impl Default for GroupEvidence {
    fn default() -> Self {
        Self {
            group_key: "session".to_owned(),
            weight: 0.5,
        }
    }
}

impl GroupEvidence {
    /// Sets the metadata key naming a memory's group.
    pub fn with_group_key(mut self, key: impl Into<String>) -> Self {
        self.group_key = key.into();
        self
    }

    /// Sets the weight (clamped to `[0, 1]`; NaN keeps the current value).
    pub fn with_weight(mut self, weight: f64) -> Self {
        if !weight.is_nan() {
            self.weight = weight.clamp(0.0, 1.0);
        }
        self
    }

    /// The group `item` belongs to (its `group_key` metadata value as JSON
    /// text, when a string, number or boolean).
    pub fn group_of(&self, item: &MemoryItem) -> Option<String> {
        group_value(item, &self.group_key)
    }

    /// The evidence each candidate receives: `fused[i]` is candidate `i`'s
    /// fused score and `groups[i]` its group; returns the amount added to
    /// each, in the same order (0 for candidates without a group). Scores
    /// that are not finite or below 0 count as 0. The formula is
    /// [`agcore_search::fusion::group_bonuses`].
    pub fn bonuses(&self, fused: &[f64], groups: &[Option<String>]) -> Vec<f64> {
        agcore_search::fusion::group_bonuses(self.weight, fused, groups)
    }
}

/// `Option<GroupEvidence>` as a table: its keys, plus `enabled` (default
/// `true`; `false` turns group evidence off).
pub(super) mod on_off {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::GroupEvidence;

    #[derive(Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Repr {
        enabled: bool,
        group_key: String,
        weight: f64,
    }

    impl Default for Repr {
        fn default() -> Self {
            let d = GroupEvidence::default();
            Self {
                enabled: true,
                group_key: d.group_key,
                weight: d.weight,
            }
        }
    }

    pub fn serialize<S: Serializer>(v: &Option<GroupEvidence>, s: S) -> Result<S::Ok, S::Error> {
        let repr = match v {
            Some(g) => Repr {
                enabled: true,
                group_key: g.group_key.clone(),
                weight: g.weight,
            },
            None => Repr {
                enabled: false,
                ..Repr::default()
            },
        };
        repr.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GroupEvidence>, D::Error> {
        let repr = Repr::deserialize(d)?;
        Ok(repr.enabled.then(|| {
            GroupEvidence::default()
                .with_group_key(repr.group_key)
                .with_weight(repr.weight)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonuses_use_the_weight() {
        let g = |name: &str| Some(name.to_owned());
        let bonus = GroupEvidence::default().bonuses(&[0.9, 0.6], &[g("a"), g("b")]);
        assert!((bonus[0] - 0.5 * 0.9).abs() < 1e-12, "{bonus:?}");
        let off = GroupEvidence::default().with_weight(0.0);
        assert_eq!(off.bonuses(&[1.0], &[g("a")]), vec![0.0]);
    }
}
