//! [`RetrieverConfig`].

use crate::MemoryFilter;

/// Settings of a [`MemoryRetriever`](super::MemoryRetriever) (see `docs/memory.md`, *Retrieval*).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RetrieverConfig {
    /// At most this many results (top-N). Default 20.
    pub max_results: usize,
    /// Results scoring below this are dropped. Default 0.1 (on the
    /// [`TextOverlap`](super::TextOverlap) scale, `[0, 1]`).
    pub min_score: f64,
    /// How many candidates each source's full-text search returns for
    /// rescoring. Default 100.
    pub candidate_pool: usize,
    /// Restricts memory-store candidates (prefix, time, metadata).
    pub filter: MemoryFilter,
}

impl Default for RetrieverConfig {
    fn default() -> Self {
        Self {
            max_results: 20,
            min_score: 0.1,
            candidate_pool: 100,
            filter: MemoryFilter::default(),
        }
    }
}

impl RetrieverConfig {
    /// Sets `max_results`.
    pub fn with_max_results(mut self, max_results: usize) -> Self {
        self.max_results = max_results;
        self
    }

    /// Sets `min_score`.
    pub fn with_min_score(mut self, min_score: f64) -> Self {
        self.min_score = min_score;
        self
    }

    /// Sets `candidate_pool`.
    pub fn with_candidate_pool(mut self, candidate_pool: usize) -> Self {
        self.candidate_pool = candidate_pool;
        self
    }

    /// Sets the memory-store candidate filter.
    pub fn with_filter(mut self, filter: MemoryFilter) -> Self {
        self.filter = filter;
        self
    }
}
