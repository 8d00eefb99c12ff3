//! [`InMemoryVectors`]: a [`VectorStore`] held in process memory.

use std::sync::{Arc, RwLock};

use agcore_llm::embedding::EmbeddingSpace;
use async_trait::async_trait;

use super::config::InMemoryVectorsConfig;
use super::prepare::{prepare_query, prepare_records, validate_namespace};
use super::state::{RebuildJob, State};
use super::{VectorFilter, VectorHit, VectorRecord, VectorStore};
use crate::MemoryError;

/// A [`VectorStore`] in memory: exact search of a namespace up to
/// [`exact_threshold`](InMemoryVectorsConfig::exact_threshold) vectors, an
/// HNSW graph of that namespace's vectors maintained incrementally above it
/// (see [`HnswIndex`](super::HnswIndex)), with the filter rule of
/// [`InMemoryVectorsConfig`]. A search across namespaces merges each
/// namespace's top k.
///
/// `Send + Sync`: one `RwLock` guards the data; searches share it, writes
/// take it alone. Graphs are built on a blocking thread from a snapshot,
/// never under the lock: until the first one is ready searches scan
/// exactly, and during a rebuild they use the old graph; writes made
/// meanwhile are applied to the new graph before it is swapped in
/// ([`rebuilt`](Self::rebuilt) waits for it). Work touching at least
/// [`blocking_components`](InMemoryVectorsConfig::blocking_components)
/// runs on tokio's blocking threads. Nothing is persisted: database
/// backends without vector search keep one of these in sync with their
/// rows ([`CachedVectors`](super::CachedVectors)).
#[derive(Debug, Clone)]
pub struct InMemoryVectors {
    space: EmbeddingSpace,
    config: InMemoryVectorsConfig,
    state: Arc<RwLock<State>>,
    build: Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl InMemoryVectors {
    /// An empty store for vectors of `space`, default settings.
    pub fn new(space: EmbeddingSpace) -> Self {
        Self::with_config(space, InMemoryVectorsConfig::default())
    }

    /// An empty store for vectors of `space` with `config`.
    pub fn with_config(space: EmbeddingSpace, config: InMemoryVectorsConfig) -> Self {
        let state = State::new(space.dimensions);
        Self {
            space,
            config,
            state: Arc::new(RwLock::new(state)),
            build: Arc::default(),
        }
    }

    /// Waits until no graph build is running (none started, or the last
    /// one installed or abandoned).
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the build task panicked.
    pub async fn rebuilt(&self) -> Result<(), MemoryError> {
        loop {
            let handle = self
                .build
                .lock()
                .map_err(|_| MemoryError::Storage("vector build lock poisoned".into()))?
                .take();
            match handle {
                Some(handle) => handle
                    .await
                    .map_err(|e| MemoryError::Storage(format!("vector graph build failed: {e}")))?,
                None => return Ok(()),
            }
        }
    }

    /// Whether a graph is being built in the background.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the lock is poisoned.
    pub fn is_rebuilding(&self) -> Result<bool, MemoryError> {
        Ok(read(&self.state)?.is_rebuilding())
    }

    /// Runs `job` on a blocking thread and installs its graph, in the
    /// background unless the configuration says otherwise.
    async fn start(&self, job: Option<RebuildJob>) -> Result<(), MemoryError> {
        let Some(job) = job else { return Ok(()) };
        let state = Arc::clone(&self.state);
        let config = self.config;
        if !self.config.background_builds {
            return self
                .run(true, move || build_due(&state, job, &config))
                .await;
        }
        // One task builds the due graphs one after the other: namespaces
        // that came due during a build are handed out when it finishes.
        let handle = tokio::task::spawn_blocking(move || {
            if build_due(&state, job, &config).is_err() {
                tracing::error!("vector index lock poisoned: graph dropped");
            }
        });
        let mut slot = self
            .build
            .lock()
            .map_err(|_| MemoryError::Storage("vector build lock poisoned".into()))?;
        // A previous handle belongs to a finished or abandoned build.
        *slot = Some(handle);
        Ok(())
    }

    /// The settings in use.
    pub fn config(&self) -> &InMemoryVectorsConfig {
        &self.config
    }

    /// Whether some namespace's searches currently go through its HNSW graph.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the lock is poisoned.
    pub fn uses_graph(&self) -> Result<bool, MemoryError> {
        Ok(!read(&self.state)?.graphs.is_empty())
    }

    /// The namespaces whose searches walk an HNSW graph, sorted.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the lock is poisoned.
    pub fn graph_namespaces(&self) -> Result<Vec<String>, MemoryError> {
        let mut names: Vec<String> = read(&self.state)?.graphs.keys().cloned().collect();
        names.sort();
        Ok(names)
    }

    /// Applies records that are already prepared by
    /// [`prepare_records`](super::prepare_records) (validated, normalised,
    /// deduplicated), as a write-through cache does after its backend
    /// committed them.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the lock is poisoned or a blocking task failed.
    pub async fn apply_prepared(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
        if records.is_empty() {
            return Ok(());
        }
        let state = Arc::clone(&self.state);
        let config = self.config;
        let heavy = {
            let s = read(&self.state)?;
            let after = s.flat.len().saturating_add(records.len());
            !s.graphs.is_empty() || after > config.exact_threshold
        } || records.len().saturating_mul(self.space.dimensions)
            >= config.blocking_components;
        let job = self
            .run(heavy, move || Ok(write(&state)?.upsert(records, &config)))
            .await?;
        self.start(job).await
    }

    async fn run<T, F>(&self, heavy: bool, work: F) -> Result<T, MemoryError>
    where
        F: FnOnce() -> Result<T, MemoryError> + Send + 'static,
        T: Send + 'static,
    {
        if heavy {
            tokio::task::spawn_blocking(work)
                .await
                .map_err(|e| MemoryError::Storage(format!("vector task failed: {e}")))?
        } else {
            work()
        }
    }
}

/// Builds `job`'s graph, installs it, then builds and installs each graph
/// that came due meanwhile (`State::finish_rebuild` hands them out).
fn build_due(
    state: &RwLock<State>,
    job: RebuildJob,
    config: &InMemoryVectorsConfig,
) -> Result<(), MemoryError> {
    let mut next = Some(job);
    while let Some(job) = next {
        let (generation, graph) = job.build();
        next = write(state)?.finish_rebuild(generation, graph, config);
    }
    Ok(())
}

fn read(state: &RwLock<State>) -> Result<std::sync::RwLockReadGuard<'_, State>, MemoryError> {
    state
        .read()
        .map_err(|_| MemoryError::Storage("vector index lock poisoned".into()))
}

fn write(state: &RwLock<State>) -> Result<std::sync::RwLockWriteGuard<'_, State>, MemoryError> {
    state
        .write()
        .map_err(|_| MemoryError::Storage("vector index lock poisoned".into()))
}

#[async_trait]
impl VectorStore for InMemoryVectors {
    fn space(&self) -> &EmbeddingSpace {
        &self.space
    }

    async fn upsert(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
        let records = prepare_records(&self.space, records)?;
        self.apply_prepared(records).await
    }

    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError> {
        validate_namespace(namespace)?;
        if ids.is_empty() {
            return Ok(0);
        }
        let state = Arc::clone(&self.state);
        let config = self.config;
        let namespace = namespace.to_owned();
        let ids = ids.to_vec();
        let heavy = !read(&self.state)?.graphs.is_empty();
        let (removed, job) = self
            .run(heavy, move || {
                Ok(write(&state)?.delete(&namespace, &ids, &config))
            })
            .await?;
        self.start(job).await?;
        Ok(removed)
    }

    async fn content_hashes(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<String>>, MemoryError> {
        let state = read(&self.state)?;
        Ok(ids
            .iter()
            .map(|id| state.content_hash(namespace, id))
            .collect())
    }

    async fn vectors(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<Vec<f32>>>, MemoryError> {
        let state = read(&self.state)?;
        Ok(ids.iter().map(|id| state.vector(namespace, id)).collect())
    }

    async fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
    ) -> Result<Vec<VectorHit>, MemoryError> {
        let query = prepare_query(&self.space, query)?;
        if k == 0 {
            return Ok(Vec::new());
        }
        let cost = read(&self.state)?.search_cost(filter, &self.config);
        let heavy = cost.saturating_mul(self.space.dimensions) >= self.config.blocking_components;
        let state = Arc::clone(&self.state);
        let config = self.config;
        let filter = filter.clone();
        self.run(heavy, move || {
            Ok(read(&state)?.search(&query, k, &filter, &config))
        })
        .await
    }

    async fn count(&self, filter: &VectorFilter) -> Result<usize, MemoryError> {
        let state = Arc::clone(&self.state);
        let heavy = filter.id_prefix.is_some()
            && read(&self.state)?.flat.len() >= self.config.blocking_components / 64;
        let filter = filter.clone();
        self.run(heavy, move || Ok(read(&state)?.count(&filter)))
            .await
    }
}
