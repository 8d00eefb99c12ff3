//! [`Storage`]: one opened backend and the memory parts it serves.
//!
//! A driver crate (`agcore-memory-sqlite`, `agcore-memory-postgres`, …)
//! opens its database from a URL and hands back a [`Storage`]: the
//! [`MemoryStore`] it implements (which also carries the knowledge wiki,
//! conversation history and session memory, all built on the store) and,
//! where the database suits it, the [`LongTermBackend`]. `agcore::memory::open`
//! picks the driver from the URL's scheme.

use std::fmt;
use std::sync::Arc;

use agcore_llm::embedding::{EmbeddingModel, EmbeddingSpace};
use async_trait::async_trait;

use crate::hybrid::{DenseIndex, EmbeddingQueueConfig};
use crate::long_term::{LongTermBackend, LongTermMemory};
use crate::vector::{InMemoryVectors, VectorStore};
use crate::{MemoryError, MemoryStore};

/// Opens a backend's vector storage for one embedding space (implemented by
/// each driver crate on its own connections).
#[async_trait]
pub trait VectorBackend: Send + Sync {
    /// The backend's vectors of `space`, created when absent.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the backend holds vectors of
    /// another space; the backend's errors.
    async fn open_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError>;

    /// Deletes every stored vector (of any space) and opens the vectors of
    /// `space`: how a backend switches to another embedding model.
    ///
    /// # Errors
    /// The backend's errors.
    async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError>;
}

/// What a backend is, for logs and `agcore memory stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackendInfo {
    /// The backend's name: `sqlite`, `postgres`, `mysql`, `redis`, `json-file`, `memory`.
    pub kind: &'static str,
    /// Where it is: a file path, or the URL with any password replaced by `***`.
    pub location: String,
    /// The server or library version, e.g. `SQLite 3.51.0` or `PostgreSQL 15.18`.
    pub version: String,
}

impl BackendInfo {
    /// Describes a backend.
    pub fn new(
        kind: &'static str,
        location: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            location: location.into(),
            version: version.into(),
        }
    }
}

impl fmt::Display for BackendInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}) at {}", self.kind, self.version, self.location)
    }
}

/// An opened storage backend: the [`MemoryStore`] and, when the backend has
/// one, the long-term memory backend, sharing the backend's connections.
///
/// Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Storage {
    info: BackendInfo,
    store: Arc<dyn MemoryStore>,
    long_term: Option<Arc<dyn LongTermBackend>>,
    vectors: Option<Arc<dyn VectorBackend>>,
}

impl fmt::Debug for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Storage")
            .field("info", &self.info)
            .field("long_term", &self.long_term.is_some())
            .field("vectors", &self.vectors.is_some())
            .finish_non_exhaustive()
    }
}

impl Storage {
    /// A backend that serves `store` and no long-term memory.
    pub fn new(info: BackendInfo, store: Arc<dyn MemoryStore>) -> Self {
        Self {
            info,
            store,
            long_term: None,
            vectors: None,
        }
    }

    /// Adds the backend's vector storage.
    #[must_use]
    pub fn with_vectors(mut self, vectors: Arc<dyn VectorBackend>) -> Self {
        self.vectors = Some(vectors);
        self
    }

    /// Whether vectors are stored in the backend (and survive a restart).
    /// Without, [`Storage::vectors`] keeps them in process memory.
    pub fn has_persistent_vectors(&self) -> bool {
        self.vectors.is_some()
    }

    /// The vectors of `space` in this backend; in process memory for
    /// backends without vector storage (the in-process backend, JSON file),
    /// so every memory is embedded again after a restart there.
    ///
    /// # Errors
    /// [`MemoryError::EmbeddingMismatch`] when the backend holds vectors of
    /// another model; the backend's errors.
    pub async fn vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        match &self.vectors {
            Some(backend) => backend.open_vectors(space).await,
            None => Ok(Arc::new(InMemoryVectors::new(space))),
        }
    }

    /// Deletes the stored vectors and opens empty ones for `space` (to switch
    /// embedding model; every memory must then be embedded again).
    ///
    /// # Errors
    /// The backend's errors.
    pub async fn reset_vectors(
        &self,
        space: EmbeddingSpace,
    ) -> Result<Arc<dyn VectorStore>, MemoryError> {
        match &self.vectors {
            Some(backend) => backend.reset_vectors(space).await,
            None => Ok(Arc::new(InMemoryVectors::new(space))),
        }
    }

    /// A [`DenseIndex`] of `embedder` over this backend's vectors, for
    /// [`HybridStore`](crate::hybrid::HybridStore) and
    /// [`LongTermMemory::with_dense`].
    ///
    /// # Errors
    /// As [`Storage::vectors`].
    pub async fn dense_index(
        &self,
        embedder: Arc<dyn EmbeddingModel>,
        queue: EmbeddingQueueConfig,
    ) -> Result<Arc<DenseIndex>, MemoryError> {
        let vectors = self.vectors(embedder.space()).await?;
        DenseIndex::new(embedder, vectors, queue)
    }

    /// Adds the long-term memory backend.
    #[must_use]
    pub fn with_long_term(mut self, long_term: Arc<dyn LongTermBackend>) -> Self {
        self.long_term = Some(long_term);
        self
    }

    /// The in-process backend: an [`InMemoryStore`](crate::InMemoryStore) and
    /// an [`InMemoryLongTerm`](crate::long_term::InMemoryLongTerm); nothing persists.
    pub fn in_memory() -> Self {
        Self::new(
            BackendInfo::new("memory", "memory://", env!("CARGO_PKG_VERSION")),
            Arc::new(crate::InMemoryStore::new()),
        )
        .with_long_term(Arc::new(crate::long_term::InMemoryLongTerm::new()))
    }

    /// What the backend is.
    pub fn info(&self) -> &BackendInfo {
        &self.info
    }

    /// The memory store (also the home of the knowledge wiki, conversation
    /// history and session memory).
    pub fn store(&self) -> Arc<dyn MemoryStore> {
        Arc::clone(&self.store)
    }

    /// Whether the backend serves long-term memory.
    pub fn has_long_term(&self) -> bool {
        self.long_term.is_some()
    }

    /// The long-term memory backend.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when this backend has none (Redis, JSON
    /// file), naming the backends that do.
    pub fn long_term_backend(&self) -> Result<Arc<dyn LongTermBackend>, MemoryError> {
        self.long_term.clone().ok_or_else(|| {
            MemoryError::InvalidInput(format!(
                "the {} backend has no long-term memory; use sqlite, postgres, mysql or memory",
                self.info.kind
            ))
        })
    }

    /// Long-term memory on this backend with the default weight rules.
    ///
    /// # Errors
    /// As [`Storage::long_term_backend`].
    pub fn long_term(&self) -> Result<LongTermMemory, MemoryError> {
        self.long_term_backend().map(LongTermMemory::from_arc)
    }
}

/// Replaces the password of a `scheme://user:password@host/…` URL by `***`,
/// so a URL can be logged or shown. Other text is returned unchanged.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("postgres://agcore:s3cret@127.0.0.1:5432/db?sslmode=disable"),
            "postgres://agcore:***@127.0.0.1:5432/db?sslmode=disable"
        );
        assert_eq!(
            redact_url("mysql://u:p:q@h/db"),
            "mysql://u:***@h/db",
            "a colon in the password"
        );
        assert_eq!(
            redact_url("redis://127.0.0.1:6379/0"),
            "redis://127.0.0.1:6379/0"
        );
        assert_eq!(redact_url("postgres://user@h/db"), "postgres://user@h/db");
        assert_eq!(redact_url("/var/lib/agcore.db"), "/var/lib/agcore.db");
    }

    #[tokio::test]
    async fn in_memory_serves_both_parts() {
        let storage = Storage::in_memory();
        assert_eq!(storage.info().kind, "memory");
        assert!(storage.has_long_term());
        let lt = storage.long_term().unwrap();
        assert!(lt.scope("a", "u").is_ok());
        let only_store = Storage::new(storage.info().clone(), storage.store());
        let err = only_store.long_term().err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("no long-term memory")));
    }
}
