//! Settings of [`HybridStore`](super::HybridStore).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{ContextConfig, DenseContext, DenseFeedback, GroupEvidence};
use crate::retriever::Fusion;

/// Which lists a search uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetrievalMode {
    /// Lexical (BM25) only: the inner store's own search.
    Lexical,
    /// Dense (cosine over embeddings) only.
    Dense,
    /// Both, fused by [`HybridConfig::fusion`] (the default).
    #[default]
    Hybrid,
}

/// How a hybrid search ranks ([`HybridStore`](super::HybridStore), long-term memory).
///
/// Defaults: hybrid retrieval, the equal-weight sum of min–max normalised
/// scores ([`Fusion::default`]), 50 candidates from each list, contextual
/// embeddings for memories in a sequence ([`DenseContext::default`]), no
/// score regularisation, no similarity threshold, no time decay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct HybridConfig {
    /// Which lists a search uses.
    pub mode: RetrievalMode,
    /// How the lists are fused.
    pub fusion: Fusion,
    /// Candidates taken from each list before fusion (at least the search's
    /// `limit`). Default 50.
    pub candidates: usize,
    /// Dense hits with a cosine similarity below this are dropped before
    /// fusion (cosine scales differ per model: E5 puts unrelated text near
    /// 0.7, MiniLM near 0). Default `None`.
    pub min_similarity: Option<f32>,
    /// Time decay: the fused score is multiplied by `2^(−age / half_life)`,
    /// age from the memory's `created_at`. Default `None` (no decay).
    #[serde(with = "opt_secs", default)]
    pub half_life: Option<Duration>,
    /// Neighbouring-memory context (score regularisation within a dialogue
    /// session); `None` (the default) turns it off. Applies to
    /// [`HybridStore`](super::HybridStore) searches.
    pub context: Option<ContextConfig>,
    /// Contextual embeddings: memories of a sequence also get a vector of
    /// their text read with their neighbours', and dense similarity adds
    /// the query's similarity to it ([`DenseContext`]). `None` keeps one
    /// vector per memory. Applies to [`HybridStore`](super::HybridStore)
    /// writes and searches; it must be the same for every handle writing
    /// to one store. Default on. In a configuration file it is a table of
    /// [`DenseContext`]'s keys plus `enabled` (`false` turns it off).
    #[serde(with = "on_off", default = "default_dense_context")]
    pub dense_context: Option<DenseContext>,
    /// Group evidence: after fusion, a candidate borrows from the other
    /// candidates of its group (its dialogue session), see
    /// [`GroupEvidence`]. `None` (the default) turns it off. Applies to
    /// [`HybridStore`](super::HybridStore) searches in the hybrid and dense
    /// modes. Off by default: it helps on LoCoMo and hurts on the Chinese
    /// dialogue set (`crates/agcore-cli/README.md`). In a configuration
    /// file the table `[retrieval.group_evidence]` turns it on: its keys
    /// plus `enabled` (default `true` there).
    #[serde(with = "super::group::on_off", default)]
    pub group_evidence: Option<GroupEvidence>,
    /// Rocchio pseudo-relevance feedback on the query vector
    /// ([`DenseFeedback`]): the dense list is searched again from the query
    /// moved towards the first ranking's best results. Applies to
    /// [`HybridStore`](super::HybridStore) searches in the hybrid and dense
    /// modes. `None` (the default) turns it off; in a configuration file
    /// the table `[retrieval.feedback]` turns it on.
    pub feedback: Option<DenseFeedback>,
    /// Namespace of a [`HybridStore`](super::HybridStore)'s vectors in the
    /// shared vector store. Default `""`. (Long-term memory uses one
    /// namespace per scope and ignores it.)
    pub namespace: String,
}

impl Default for HybridConfig {
    fn default() -> Self {
        Self {
            mode: RetrievalMode::Hybrid,
            fusion: Fusion::default(),
            candidates: 50,
            min_similarity: None,
            half_life: None,
            context: None,
            dense_context: Some(DenseContext::default()),
            group_evidence: None,
            feedback: None,
            namespace: String::new(),
        }
    }
}

impl HybridConfig {
    /// Sets the retrieval mode.
    pub fn with_mode(mut self, mode: RetrievalMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the fusion method.
    pub fn with_fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// Sets the candidates taken from each list.
    pub fn with_candidates(mut self, candidates: usize) -> Self {
        self.candidates = candidates.max(1);
        self
    }

    /// Sets the dense similarity threshold.
    pub fn with_min_similarity(mut self, min: Option<f32>) -> Self {
        self.min_similarity = min;
        self
    }

    /// Sets the neighbouring-memory context.
    pub fn with_context(mut self, context: Option<ContextConfig>) -> Self {
        self.context = context;
        self
    }

    /// Sets the contextual embeddings (`None`: one vector per memory).
    pub fn with_dense_context(mut self, dense_context: Option<DenseContext>) -> Self {
        self.dense_context = dense_context;
        self
    }

    /// Sets the group evidence (`None`: off).
    pub fn with_group_evidence(mut self, group_evidence: Option<GroupEvidence>) -> Self {
        self.group_evidence = group_evidence;
        self
    }

    /// Sets the time-decay half-life.
    pub fn with_half_life(mut self, half_life: Option<Duration>) -> Self {
        self.half_life = half_life;
        self
    }

    /// Sets pseudo-relevance feedback on the query vector (`None`: off).
    pub fn with_feedback(mut self, feedback: Option<DenseFeedback>) -> Self {
        self.feedback = feedback;
        self
    }

    /// Sets the vector namespace.
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }
}

fn default_dense_context() -> Option<DenseContext> {
    Some(DenseContext::default())
}

/// `Option<DenseContext>` as a table: its keys, plus `enabled` (default
/// `true`; `false` turns contextual embeddings off).
mod on_off {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::DenseContext;

    #[derive(Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Repr {
        enabled: bool,
        group_key: String,
        window: usize,
        weight: f64,
    }

    impl Default for Repr {
        fn default() -> Self {
            let d = DenseContext::default();
            Self {
                enabled: true,
                group_key: d.group_key,
                window: d.window,
                weight: d.weight,
            }
        }
    }

    pub fn serialize<S: Serializer>(v: &Option<DenseContext>, s: S) -> Result<S::Ok, S::Error> {
        let repr = match v {
            Some(c) => Repr {
                enabled: true,
                group_key: c.group_key.clone(),
                window: c.window,
                weight: c.weight,
            },
            None => Repr {
                enabled: false,
                ..Repr::default()
            },
        };
        repr.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DenseContext>, D::Error> {
        let repr = Repr::deserialize(d)?;
        Ok(repr.enabled.then(|| {
            DenseContext::default()
                .with_group_key(repr.group_key)
                .with_window(repr.window)
                .with_weight(repr.weight)
        }))
    }
}

mod opt_secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&d.as_secs_f64()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Option::<f64>::deserialize(d)?
            .map(|secs| Duration::try_from_secs_f64(secs).map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: serde_json::Value) -> HybridConfig {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn group_evidence_is_off_unless_its_table_is_given() {
        assert_eq!(parse(json!({})).group_evidence, None);
        assert_eq!(
            parse(json!({"group_evidence": {}})).group_evidence,
            Some(GroupEvidence::default())
        );
        assert_eq!(
            parse(json!({"group_evidence": {"enabled": false}})).group_evidence,
            None
        );
        assert_eq!(
            parse(json!({"group_evidence": {"group_key": "thread", "weight": 0.3}})).group_evidence,
            Some(
                GroupEvidence::default()
                    .with_group_key("thread")
                    .with_weight(0.3)
            )
        );
        assert!(
            serde_json::from_value::<HybridConfig>(json!({"group_evidence": {"wieght": 1}}))
                .is_err()
        );
    }

    #[test]
    fn dense_context_is_on_unless_disabled() {
        assert_eq!(
            parse(json!({})).dense_context,
            Some(DenseContext::default())
        );
        assert_eq!(
            parse(json!({"dense_context": {"enabled": false}})).dense_context,
            None
        );
        let wide = parse(json!({"dense_context": {"window": 2, "weight": 1.0}}));
        assert_eq!(
            wide.dense_context,
            Some(DenseContext::default().with_window(2).with_weight(1.0))
        );
        assert!(
            serde_json::from_value::<HybridConfig>(json!({"dense_context": {"windw": 2}})).is_err()
        );
        for config in [
            HybridConfig::default(),
            HybridConfig::default().with_dense_context(None),
            HybridConfig::default().with_group_evidence(None),
            HybridConfig::default()
                .with_group_evidence(Some(GroupEvidence::default().with_weight(0.25))),
        ] {
            let back: HybridConfig =
                serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
            assert_eq!(back, config);
        }
    }
}
