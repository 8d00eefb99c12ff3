//! [`ContextualBm25Config`].

use agcore_search::{DEFAULT_B, DEFAULT_K1};

use super::{Analyzer, Rm3Config};

/// Settings of a [`ContextualBm25`](super::ContextualBm25) index.
///
/// The defaults are published defaults, not values fitted to an evaluation
/// set: `k1 = 1.2`, `b = 0.75` (Robertson & Zaragoza 2009), a context window
/// of one memory on each side weighted one half, and no pseudo-relevance
/// feedback.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ContextualBm25Config {
    /// BM25 term-frequency saturation, ≥ 0. Default 1.2.
    pub k1: f64,
    /// BM25 length normalisation of every field, in `[0, 1]`. Default 0.75.
    pub b: f64,
    /// How many neighbouring memories on each side (same group, in time
    /// order) form a memory's context field. 0 turns contextual expansion
    /// off. Default 1.
    pub context_window: usize,
    /// Weight of the context field against the memory's own text (weight 1)
    /// in BM25F, ≥ 0. Default 0.5.
    pub context_weight: f64,
    /// Metadata key whose value groups memories into sequences (a chat
    /// session, a document); neighbours never cross groups. Memories without
    /// the key form one group. `None`: all memories are one sequence.
    /// Default `Some("session")`.
    pub group_key: Option<String>,
    /// Pseudo-relevance feedback (RM3), off by default.
    pub rm3: Option<Rm3Config>,
    /// How text becomes terms. Default [`Analyzer::english`] (stemming).
    pub analyzer: Analyzer,
}

impl Default for ContextualBm25Config {
    fn default() -> Self {
        Self {
            k1: DEFAULT_K1,
            b: DEFAULT_B,
            context_window: 1,
            context_weight: 0.5,
            group_key: Some("session".to_owned()),
            rm3: None,
            analyzer: Analyzer::english(),
        }
    }
}

impl ContextualBm25Config {
    /// Sets the BM25 parameters; `k1` is clamped to ≥ 0, `b` to `[0, 1]`, NaN
    /// keeps the current value.
    pub fn with_bm25(mut self, k1: f64, b: f64) -> Self {
        if !k1.is_nan() {
            self.k1 = k1.max(0.0);
        }
        if !b.is_nan() {
            self.b = b.clamp(0.0, 1.0);
        }
        self
    }

    /// Sets the context window (memories on each side; 0 = no context field).
    pub fn with_context_window(mut self, window: usize) -> Self {
        self.context_window = window;
        self
    }

    /// Sets the context field weight (clamped to ≥ 0; NaN keeps the current value).
    pub fn with_context_weight(mut self, weight: f64) -> Self {
        if !weight.is_nan() {
            self.context_weight = weight.max(0.0);
        }
        self
    }

    /// Sets the metadata key that groups memories into sequences.
    pub fn with_group_key(mut self, key: Option<String>) -> Self {
        self.group_key = key;
        self
    }

    /// Turns RM3 pseudo-relevance feedback on (`Some`) or off.
    pub fn with_rm3(mut self, rm3: Option<Rm3Config>) -> Self {
        self.rm3 = rm3;
        self
    }

    /// Sets the analyzer.
    pub fn with_analyzer(mut self, analyzer: Analyzer) -> Self {
        self.analyzer = analyzer;
        self
    }
}
