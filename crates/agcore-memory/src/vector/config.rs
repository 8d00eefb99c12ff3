//! Settings of [`InMemoryVectors`](super::InMemoryVectors).

use agcore_search::vector::HnswConfig;

/// When [`InMemoryVectors`](super::InMemoryVectors) uses the approximate
/// graph and when it moves work off the async threads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InMemoryVectorsConfig {
    /// Per namespace: up to this many vectors its searches are an exact
    /// scan of its rows; above it an HNSW graph of its vectors is built (and
    /// dropped again below half of it). A search whose id prefix passes at
    /// most this many of a namespace's vectors also scans them exactly.
    /// Default 20,000 (an exact scan of 20,000 × 384 components takes a few
    /// milliseconds on one core).
    pub exact_threshold: usize,
    /// Graph parameters.
    pub hnsw: HnswConfig,
    /// Rebuild the graph when more than this fraction of its nodes are
    /// tombstones of replaced or deleted vectors. Default 0.25.
    pub rebuild_tombstone_fraction: f64,
    /// Run a search or write on a blocking thread (`spawn_blocking`) when it
    /// touches at least this many vector components (rows × dimensions);
    /// below it the work is done inline. Default 1,000,000 (≈ 0.3 ms).
    pub blocking_components: usize,
    /// Build graphs in the background (default `true`): the write that
    /// makes one due returns after copying the vectors, searches scan
    /// exactly or use the old graph until the new one is swapped in. With
    /// `false` that write waits for the build (seconds at 100,000 vectors),
    /// so the graph is in place as soon as it returns.
    pub background_builds: bool,
}

impl Default for InMemoryVectorsConfig {
    fn default() -> Self {
        Self {
            exact_threshold: 20_000,
            hnsw: HnswConfig::default(),
            rebuild_tombstone_fraction: 0.25,
            blocking_components: 1_000_000,
            background_builds: true,
        }
    }
}

impl InMemoryVectorsConfig {
    /// The default settings with another exact threshold.
    pub fn with_exact_threshold(mut self, threshold: usize) -> Self {
        self.exact_threshold = threshold;
        self
    }

    /// These settings with graphs built in the background or not.
    pub fn with_background_builds(mut self, background: bool) -> Self {
        self.background_builds = background;
        self
    }

    /// The default settings with other graph parameters.
    pub fn with_hnsw(mut self, hnsw: HnswConfig) -> Self {
        self.hnsw = hnsw;
        self
    }
}
