//! The data of an [`InMemoryVectors`](super::InMemoryVectors) and its
//! synchronous writes and graph builds (run inline or on a blocking thread);
//! the search rule is in `search.rs`.

use std::collections::BTreeSet;
use std::sync::Arc;

use foldhash::{HashMap, HashSet};

use super::VectorRecord;
use super::config::InMemoryVectorsConfig;
use agcore_search::vector::FlatIndex;
use agcore_search::vector::VectorKey;
use agcore_search::vector::{HnswConfig, HnswIndex};

/// Vectors (with their per-namespace row lists), content hashes and, for
/// each namespace above the exact threshold, its own HNSW graph.
///
/// A graph per namespace: a search in one namespace (a user's memories,
/// their window vectors) walks a graph of that namespace's vectors only,
/// never over-fetching past other namespaces' neighbours, whose texts may be
/// nearer the query as a whole (short memories against three-turn windows).
///
/// Graphs are built off the lock, one at a time: when one is needed (a
/// namespace crosses the threshold, or its tombstones pass the rebuild
/// fraction) a write hands out a [`RebuildJob`] holding a snapshot of that
/// namespace's vectors; the owner builds it on a blocking thread while reads
/// and writes go on (searches use the old graph, or the exact scan when
/// there is none), and [`finish_rebuild`](Self::finish_rebuild) replays the
/// keys written since the snapshot onto the new graph before it replaces the
/// old one, then hands out the build of the next namespace that came due
/// meanwhile.
#[derive(Debug)]
pub(super) struct State {
    pub(super) flat: FlatIndex,
    hashes: HashMap<Arc<VectorKey>, String>,
    pub(super) graphs: HashMap<String, HnswIndex>,
    /// The running build.
    rebuilding: Option<Rebuild>,
    /// Namespaces whose build came due while another one ran.
    pending: BTreeSet<String>,
    next_generation: u64,
}

/// The running build: its generation, namespace and the keys of that
/// namespace written since its snapshot.
#[derive(Debug)]
struct Rebuild {
    generation: u64,
    namespace: String,
    touched: HashSet<Arc<VectorKey>>,
}

/// A graph to build from a snapshot of one namespace's vectors, off the lock.
#[derive(Debug)]
pub(super) struct RebuildJob {
    generation: u64,
    snapshot: FlatIndex,
    config: HnswConfig,
}

impl RebuildJob {
    /// Builds the graph (CPU-bound: call it on a blocking thread).
    pub(super) fn build(self) -> (u64, HnswIndex) {
        (
            self.generation,
            HnswIndex::build(self.config, &self.snapshot),
        )
    }
}

impl State {
    pub(super) fn new(dimensions: usize) -> Self {
        Self {
            flat: FlatIndex::new(dimensions),
            hashes: HashMap::default(),
            graphs: HashMap::default(),
            rebuilding: None,
            pending: BTreeSet::new(),
            next_generation: 0,
        }
    }

    /// Whether a graph is being built (or waits to be).
    pub(super) fn is_rebuilding(&self) -> bool {
        self.rebuilding.is_some()
    }

    /// Installs the graph built by the job of `generation`, after applying
    /// to it the keys written since the job's snapshot (a graph of an
    /// abandoned job is dropped); returns the build of the next namespace
    /// that came due meanwhile, if any.
    pub(super) fn finish_rebuild(
        &mut self,
        generation: u64,
        mut graph: HnswIndex,
        config: &InMemoryVectorsConfig,
    ) -> Option<RebuildJob> {
        match self.rebuilding.take() {
            Some(done) if done.generation == generation => {
                let mut fresh: Vec<(Arc<VectorKey>, &[f32])> = Vec::new();
                for key in done.touched {
                    match self.flat.get(&key) {
                        Some(vector) => fresh.push((key, vector)),
                        None => {
                            graph.remove(&key);
                        }
                    }
                }
                graph.insert(&fresh);
                self.graphs.insert(done.namespace, graph);
            }
            other => self.rebuilding = other,
        }
        while self.rebuilding.is_none() {
            let namespace = self.pending.pop_first()?;
            if let Some(job) = self.maintain(&namespace, config) {
                return Some(job);
            }
        }
        None
    }

    /// Applies prepared (validated, normalised, deduplicated) records;
    /// returns a graph build to run when one is due.
    pub(super) fn upsert(
        &mut self,
        records: Vec<VectorRecord>,
        config: &InMemoryVectorsConfig,
    ) -> Option<RebuildJob> {
        let mut changed: HashMap<String, Vec<Arc<VectorKey>>> = HashMap::default();
        for record in records {
            let key = VectorKey::new(record.namespace, record.id);
            let Some((shared, _)) = self.flat.upsert(key, &record.vector) else {
                continue;
            };
            self.hashes.insert(Arc::clone(&shared), record.content_hash);
            changed
                .entry(shared.namespace.clone())
                .or_default()
                .push(shared);
        }
        let mut job = None;
        for (namespace, keys) in changed {
            if let Some(graph) = self.graphs.get_mut(&namespace) {
                let vectors: Vec<(Arc<VectorKey>, &[f32])> = keys
                    .iter()
                    .filter_map(|k| self.flat.get(k).map(|v| (Arc::clone(k), v)))
                    .collect();
                graph.insert(&vectors);
            }
            if let Some(rebuild) = self.rebuilding.as_mut()
                && rebuild.namespace == namespace
            {
                rebuild.touched.extend(keys);
            }
            let due = self.maintain(&namespace, config);
            job = job.or(due);
        }
        job
    }

    /// Deletes `ids` of `namespace`; returns how many existed, and a graph
    /// build to run when one is due.
    pub(super) fn delete(
        &mut self,
        namespace: &str,
        ids: &[String],
        config: &InMemoryVectorsConfig,
    ) -> (usize, Option<RebuildJob>) {
        let mut removed = 0;
        for id in ids {
            let key = VectorKey::new(namespace, id.as_str());
            if self.flat.remove(&key) {
                removed += 1;
                self.hashes.remove(&key);
                if let Some(graph) = self.graphs.get_mut(namespace) {
                    graph.remove(&key);
                }
                if let Some(rebuild) = self.rebuilding.as_mut()
                    && rebuild.namespace == namespace
                {
                    rebuild.touched.insert(Arc::new(key.clone()));
                }
            }
        }
        let job = if removed > 0 {
            self.maintain(namespace, config)
        } else {
            None
        };
        (removed, job)
    }

    /// For `namespace`: drops its graph (and its build) below half the
    /// threshold; hands out a build past the threshold, or when its
    /// tombstones exceed the configured fraction — or, while another build
    /// runs, queues it for [`finish_rebuild`](Self::finish_rebuild).
    fn maintain(&mut self, namespace: &str, config: &InMemoryVectorsConfig) -> Option<RebuildJob> {
        let n = self.flat.namespace_len(namespace);
        if n <= config.exact_threshold / 2 {
            self.graphs.remove(namespace);
            self.pending.remove(namespace);
            if self
                .rebuilding
                .as_ref()
                .is_some_and(|r| r.namespace == namespace)
            {
                // Abandoned: its graph is dropped when it finishes.
                self.rebuilding = None;
            }
            return None;
        }
        let due = match self.graphs.get(namespace) {
            None => n > config.exact_threshold,
            Some(graph) => graph.tombstone_ratio() > config.rebuild_tombstone_fraction,
        };
        if !due {
            return None;
        }
        match &self.rebuilding {
            Some(running) => {
                if running.namespace != namespace {
                    self.pending.insert(namespace.to_owned());
                }
                None
            }
            None => {
                let generation = self.next_generation;
                self.next_generation += 1;
                self.rebuilding = Some(Rebuild {
                    generation,
                    namespace: namespace.to_owned(),
                    touched: HashSet::default(),
                });
                Some(RebuildJob {
                    generation,
                    snapshot: self.flat.namespace_copy(namespace),
                    config: config.hnsw,
                })
            }
        }
    }

    pub(super) fn content_hash(&self, namespace: &str, id: &str) -> Option<String> {
        self.hashes.get(&VectorKey::new(namespace, id)).cloned()
    }

    /// A copy of the vector stored for `(namespace, id)`.
    pub(super) fn vector(&self, namespace: &str, id: &str) -> Option<Vec<f32>> {
        self.flat
            .get(&VectorKey::new(namespace, id))
            .map(<[f32]>::to_vec)
    }

    /// The content hash stored with `key`.
    pub(super) fn hash_of(&self, key: &VectorKey) -> Option<String> {
        self.hashes.get(key).cloned()
    }
}
