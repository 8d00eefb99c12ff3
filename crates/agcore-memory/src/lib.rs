//! Memory for agcore agents: a pluggable store, conversation history, an
//! LLM-Wiki knowledge base, long-term memory, and lexical, dense and hybrid
//! retrieval.
//!
//! - [`MemoryStore`]: the storage abstraction (upsert, get, delete, list,
//!   count, full-text search), `Send + Sync` and async. [`InMemoryStore`] is
//!   the default (inverted index + BM25, [`EvictionConfig`] TTL / capacity);
//!   database backends live in driver crates (`agcore-memory-sqlite`, …) and
//!   come back from a URL as a [`Storage`].
//! - [`ConversationMemory`]: per-session chat history with sliding-window or
//!   full strategies, capacity eviction and tool-result compaction.
//! - [`KnowledgeStore`]: wiki pages with an index, backlinks, a change log
//!   and Markdown export/import.
//! - [`search`]: the `agcore-search` crate, home of the analyzers, BM25 /
//!   BM25F, fusion, RM3, the vector indexes and near-duplicate detection
//!   (re-exported from their old paths in [`retriever`] and [`vector`]).
//! - [`retriever`]: keyword extraction (CJK bigrams), the [`TextOverlap`](retriever::TextOverlap)
//!   and [`Bm25`](retriever::Bm25) scorers, the [`MemoryRetriever`], and
//!   [`ContextualBm25`]: stemmed BM25F with neighbouring-memory context and RM3.
//! - [`vector`]: the [`VectorStore`](vector::VectorStore) trait and
//!   [`InMemoryVectors`](vector::InMemoryVectors) (exact top-k, HNSW above a size).
//! - [`hybrid`]: [`DenseIndex`](hybrid::DenseIndex) (embedder, vectors and a
//!   background embedding queue) and [`HybridStore`](hybrid::HybridStore):
//!   BM25 and dense similarity fused, with a score breakdown per hit.
//! - [`MemoryError`]: every failure, with [`MemoryError::is_recoverable`].
//! - `testkit` (feature): the exhaustive reference searches of the in-memory
//!   store, which the conformance suites of `agcore-memory-testkit` compare with.
//!
//! # Examples
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agcore_memory::{InMemoryStore, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};
//!
//! let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
//! store.save(MemoryItem::new("pref:style", "The user prefers concise answers")).await?;
//! store.save(MemoryItem::new("pref:lang", "用户喜欢用中文交流")).await?;
//!
//! let hits = store.search("concise answers", &SearchOptions::default()).await?;
//! assert_eq!(hits[0].item.id, "pref:style");
//! let hits = store.search("中文", &SearchOptions::default()).await?;
//! assert_eq!(hits[0].item.id, "pref:lang");
//! assert_eq!(store.count(&MemoryFilter::with_prefix("pref:")).await?, 2);
//! # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
//! ```

mod conversation;
mod error;
mod eviction;
pub mod hybrid;
mod in_memory;
#[cfg(feature = "json-file")]
mod json_file;
pub mod knowledge;
pub mod long_term;
mod page;
pub mod rebuild;
pub mod reindex;
pub mod retriever;
pub mod retry;
pub mod schema;
pub mod server;
pub mod server_error;
pub mod sql_store;
/// The search engine parts (analyzers, BM25 / BM25F, fusion, RM3, vector
/// indexes, near-duplicate detection): the `agcore-search` crate.
pub use agcore_search as search;
pub mod storage;
mod store;
mod types;
pub mod vector;

pub use conversation::{
    CONVERSATION_INFO_PREFIX, CONVERSATION_PREFIX, ConversationInfo, ConversationMemory,
    ConversationMemoryConfig, MAX_SESSION_ID_BYTES, StoredMessage, list_conversations,
};
pub use error::MemoryError;
pub use eviction::{EvictionConfig, EvictionPolicy};
pub use in_memory::InMemoryStore;
#[cfg(feature = "json-file")]
#[cfg_attr(docsrs, doc(cfg(feature = "json-file")))]
pub use json_file::JsonFileStore;
pub use knowledge::{KnowledgeStore, LogAction, LogEntry, ScoredPage};
pub use page::{KnowledgePage, PageIndexEntry};
pub use retriever::{
    ContextualBm25, ContextualBm25Config, MemoryRetriever, RetrievalResult, RetrieverConfig,
};
pub use storage::{BackendInfo, Storage};
pub use store::{MemoryStore, ScoredItem, SearchOptions, items_in_order};
pub use types::{
    MAX_CONTENT_BYTES, MAX_ID_BYTES, MemoryFilter, MemoryItem, MemoryStrategy, validate_id,
};
