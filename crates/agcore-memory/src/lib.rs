//! Memory for agcore agents.
//!
//! - [`MemoryStore`]: the storage abstraction (upsert, get, delete, list, search).
//! - [`MemoryItem`], [`MemoryFilter`], [`SearchOptions`], [`ScoredItem`]: its data.
//! - [`MemoryError`]: every failure, with [`MemoryError::is_recoverable`].

mod error;
mod eviction;
pub mod retriever;
mod store;
mod types;

pub use error::MemoryError;
pub use eviction::{EvictionConfig, EvictionPolicy};
pub use store::{MemoryStore, ScoredItem, SearchOptions};
pub use types::{validate_id, 
    KnowledgePage, MAX_CONTENT_BYTES, MAX_ID_BYTES, MemoryFilter, MemoryItem, MemoryStrategy,
    PageIndexEntry,
};
