//! The stores under evaluation: one [`HybridStore`] per namespace over the
//! chosen backend, opened and removed again.

use std::sync::Arc;

use agcore::llm::embedding::EmbeddingModel;
use agcore::memory::SqliteStore;
use agcore::memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore};
use agcore::memory::vector::{InMemoryVectors, VectorStore};
use agcore::memory::{InMemoryStore, MemoryStore, Storage};

use super::StoreKind;
use super::server::ServerStores;
use crate::EvalError;

/// The stores under evaluation, as agents use them: one [`HybridStore`] per
/// namespace (a LoCoMo conversation is one user's memory, searched on its
/// own, so its BM25 collection statistics are its own, as in every anchor
/// the figures are compared with) over the chosen backend, lexical only
/// without an embedder. SQLite stores live in a temporary folder removed
/// when this is dropped.
pub struct EvalStore {
    /// One store per namespace of the dataset, in the dataset's order.
    pub stores: Vec<HybridStore>,
    _dir: Option<tempfile::TempDir>,
    server: Option<ServerStores>,
}

impl EvalStore {
    /// Opens `namespaces` empty stores of `kind`, with dense retrieval when
    /// `embedder` is given (one embedding queue shared by the stores; on a
    /// server, the vectors are stored there, in the first namespace's
    /// schema, database or prefix, as an agent on that backend stores them).
    ///
    /// # Errors
    /// I/O errors creating the temporary folder; store errors. Stores made
    /// on a server before an error are removed.
    pub async fn open(
        kind: &StoreKind,
        embedder: Option<Arc<dyn EmbeddingModel>>,
        config: HybridConfig,
        namespaces: usize,
    ) -> Result<Self, EvalError> {
        let dir = match kind {
            StoreKind::Sqlite => Some(tempfile::Builder::new().prefix("agcore-eval-").tempdir()?),
            StoreKind::Memory | StoreKind::Server(..) => None,
        };
        let mut server = match kind {
            StoreKind::Server(kind, url) => Some(ServerStores::new(*kind, url)),
            _ => None,
        };
        let built = Self::build(dir.as_ref(), server.as_mut(), embedder, config, namespaces).await;
        match built {
            Ok(stores) => Ok(Self {
                stores,
                _dir: dir,
                server,
            }),
            Err(err) => {
                if let Some(made) = server {
                    // The error that stopped the run is the one to report.
                    let _ = made.remove().await;
                }
                Err(err)
            }
        }
    }

    /// The stores of [`Self::open`]: SQLite files in `dir`, stores on
    /// `server`, or in memory.
    async fn build(
        dir: Option<&tempfile::TempDir>,
        mut server: Option<&mut ServerStores>,
        embedder: Option<Arc<dyn EmbeddingModel>>,
        config: HybridConfig,
        namespaces: usize,
    ) -> Result<Vec<HybridStore>, EvalError> {
        let mut bases: Vec<Arc<dyn MemoryStore>> = Vec::with_capacity(namespaces);
        let mut first: Option<Storage> = None;
        for n in 0..namespaces {
            bases.push(match (dir, server.as_deref_mut()) {
                (Some(dir), _) => {
                    Arc::new(SqliteStore::open(dir.path().join(format!("eval-{n}.db"))).await?)
                }
                (None, Some(made)) => {
                    let storage = made.open(n).await?;
                    let store = storage.store();
                    first.get_or_insert(storage);
                    store
                }
                (None, None) => Arc::new(InMemoryStore::new()),
            });
        }
        // One embedding queue and one vector store for all of them, each
        // store's vectors in its own namespace: one model, called by one
        // queue as in an agent process.
        let dense = match &embedder {
            None => None,
            Some(embedder) => {
                let vectors: Arc<dyn VectorStore> = match &first {
                    Some(storage) => storage.vectors(embedder.space()).await?,
                    None => Arc::new(InMemoryVectors::new(embedder.space())),
                };
                Some(DenseIndex::new(
                    Arc::clone(embedder),
                    vectors,
                    EmbeddingQueueConfig::default(),
                )?)
            }
        };
        Ok(bases
            .into_iter()
            .enumerate()
            .map(|(n, base)| match &dense {
                None => HybridStore::lexical(base).with_config(config.clone()),
                Some(dense) => HybridStore::new(
                    base,
                    Arc::clone(dense),
                    config.clone().with_namespace(format!("ns{n}")),
                ),
            })
            .collect())
    }

    /// Removes the stores made on a server (the temporary folder goes when
    /// this is dropped).
    ///
    /// # Errors
    /// [`EvalError::Config`] naming a schema, database or prefix that could
    /// not be removed.
    pub async fn close(self) -> Result<(), EvalError> {
        drop(self.stores);
        match self.server {
            Some(server) => server.remove().await,
            None => Ok(()),
        }
    }
}
