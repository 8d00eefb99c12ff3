//! Dense vectors of memories and nearest-neighbour search over them.
//!
//! A [`VectorStore`] keeps one vector per `(namespace, id)` — the id of the
//! memory, long-term entry or page the vector was computed from — together
//! with the hash of the text it was computed from, so unchanged text is
//! never embedded twice. Every store is bound to one
//! [`EmbeddingSpace`] (model id and
//! dimensions) and refuses vectors of another one with
//! [`MemoryError::EmbeddingMismatch`].
//!
//! Similarity is cosine: stores L2-normalise vectors on write and queries on
//! search, and scores are dot products of unit vectors in `[-1, 1]`.
//!
//! Implementations here: [`FlatIndex`] (exact scan, the reference) and
//! [`HnswIndex`] (approximate graph with tombstones and filters), both from
//! [`agcore_search::vector`],
//! [`InMemoryVectors`] (a store switching between them by size) and
//! [`CachedVectors`] (rows in a database without vector search, served by
//! an in-memory index kept in sync).

mod cached;
mod config;
mod in_memory;
pub mod layout;
mod prepare;
mod search;
mod state;
mod tables;

/// The embedding space (model id and dimensions) a store is bound to,
/// re-exported for backends.
pub use agcore_llm::embedding::EmbeddingSpace;
use async_trait::async_trait;

/// The generic indexes and helpers, from `agcore-search` (re-exported from
/// their old paths).
pub use agcore_search::vector::{
    FlatIndex, HnswConfig, HnswIndex, TopK, UnitCosine, VectorKey, dot, rank_order,
};
pub use cached::{CachedVectors, VectorRows};
pub use config::InMemoryVectorsConfig;
pub use in_memory::InMemoryVectors;
pub use prepare::{prepare_query, prepare_records, validate_namespace};
use serde::{Deserialize, Serialize};
pub use tables::{VectorTables, vector_from_bytes, vector_to_bytes};

use crate::MemoryError;

/// One stored vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorRecord {
    /// Namespace: `""` for [`MemoryStore`](crate::MemoryStore) items, a scope
    /// key for long-term entries, a collection name for pages.
    pub namespace: String,
    /// The id of what the vector was computed from (≤ [`MAX_ID_BYTES`](crate::MAX_ID_BYTES)).
    pub id: String,
    /// The vector, of the store's dimensions.
    pub vector: Vec<f32>,
    /// A hash of the embedded text (hex), used to skip re-embedding unchanged text.
    pub content_hash: String,
}

impl VectorRecord {
    /// A record in `namespace` for `id`.
    pub fn new(
        namespace: impl Into<String>,
        id: impl Into<String>,
        vector: Vec<f32>,
        content_hash: impl Into<String>,
    ) -> Self {
        Self {
            namespace: namespace.into(),
            id: id.into(),
            vector,
            content_hash: content_hash.into(),
        }
    }
}

/// Which vectors a search or count looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VectorFilter {
    /// Only this namespace (exact match); `None` = every namespace.
    pub namespace: Option<String>,
    /// Only ids starting with this prefix.
    pub id_prefix: Option<String>,
}

impl VectorFilter {
    /// Vectors of one namespace.
    pub fn namespace(namespace: impl Into<String>) -> Self {
        Self {
            namespace: Some(namespace.into()),
            id_prefix: None,
        }
    }

    /// Also require ids to start with `prefix`.
    pub fn with_id_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.id_prefix = Some(prefix.into());
        self
    }

    /// Whether a record with this namespace and id passes.
    pub fn matches(&self, namespace: &str, id: &str) -> bool {
        self.namespace.as_deref().is_none_or(|n| n == namespace) && self.matches_id(id)
    }

    /// Whether a record with this id passes the id prefix (the namespace
    /// not checked: for scans of one namespace's rows).
    pub fn matches_id(&self, id: &str) -> bool {
        self.id_prefix.as_deref().is_none_or(|p| id.starts_with(p))
    }
}

/// One nearest neighbour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorHit {
    /// Namespace of the record.
    pub namespace: String,
    /// Id of the record.
    pub id: String,
    /// Cosine similarity to the query, in `[-1, 1]`.
    pub score: f32,
    /// The content hash stored with the vector that was scored, read in the
    /// same snapshot as the vector (`None` when the store does not report
    /// it; callers then look it up with [`VectorStore::content_hashes`],
    /// which may see a newer vector written after the search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
}

/// A vector store: upsert, delete and k-nearest-neighbour search by cosine
/// similarity, bound to one [`EmbeddingSpace`]. `Send + Sync`; share it as
/// `Arc<dyn VectorStore>`.
///
/// The public testkit (`agcore_memory_testkit::vectors`) states the
/// contract and runs unchanged against every implementation.
#[async_trait]
pub trait VectorStore: Send + Sync {
    /// The space every stored vector belongs to.
    fn space(&self) -> &EmbeddingSpace;

    /// Inserts or replaces records (by `(namespace, id)`), atomically per call.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a vector of the wrong length, a
    /// non-finite component or a bad id — nothing is written then;
    /// backend errors as [`MemoryError::Storage`] / [`MemoryError::Unavailable`].
    async fn upsert(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError>;

    /// Deletes the vectors of `ids` in `namespace`; returns how many existed.
    ///
    /// # Errors
    /// Backend errors.
    async fn delete(&self, namespace: &str, ids: &[String]) -> Result<usize, MemoryError>;

    /// The content hashes stored for `ids` in `namespace`, in the order of
    /// `ids` (`None` where there is no vector).
    ///
    /// # Errors
    /// Backend errors.
    async fn content_hashes(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<String>>, MemoryError>;

    /// The stored (L2-normalised) vectors of `ids` in `namespace`, in the
    /// order of `ids` (`None` where there is none). Pseudo-relevance
    /// feedback ([`DenseFeedback`](crate::hybrid::DenseFeedback)) reads the
    /// vectors of the first results with it.
    ///
    /// # Errors
    /// Backend errors.
    async fn vectors(
        &self,
        namespace: &str,
        ids: &[String],
    ) -> Result<Vec<Option<Vec<f32>>>, MemoryError>;

    /// The `k` records most similar to `query` among those passing
    /// `filter`, best first; ties broken by namespace then id, ascending.
    /// Approximate indexes may miss some true neighbours (documented per
    /// implementation, measured as recall@k against exact search).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a query of the wrong length or with a
    /// non-finite component; backend errors.
    async fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: &VectorFilter,
    ) -> Result<Vec<VectorHit>, MemoryError>;

    /// How many records pass `filter`.
    ///
    /// # Errors
    /// Backend errors.
    async fn count(&self, filter: &VectorFilter) -> Result<usize, MemoryError>;
}

/// Checks that `vector` fits `space` (length, finite components).
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming what is wrong.
pub fn check_vector(space: &EmbeddingSpace, vector: &[f32]) -> Result<(), MemoryError> {
    if vector.len() != space.dimensions {
        return Err(MemoryError::InvalidInput(format!(
            "vector has {} components, the store holds {}",
            vector.len(),
            space
        )));
    }
    if vector.iter().any(|x| !x.is_finite()) {
        return Err(MemoryError::InvalidInput(
            "vector has a component that is not finite".into(),
        ));
    }
    Ok(())
}

/// Checks that a store holding `stored` may be used with `requested`.
///
/// # Errors
/// [`MemoryError::EmbeddingMismatch`] when model id or dimensions differ.
pub fn check_space(stored: &EmbeddingSpace, requested: &EmbeddingSpace) -> Result<(), MemoryError> {
    if stored == requested {
        Ok(())
    } else {
        Err(MemoryError::EmbeddingMismatch {
            stored: stored.to_string(),
            requested: requested.to_string(),
        })
    }
}
