//! A backend contract of agcore memory in a few methods.
//!
//! Implement [`KvBackend`] — [`get`](KvBackend::get),
//! [`scan`](KvBackend::scan), [`write`](KvBackend::write) (atomic and
//! durable) and optionally [`close`](KvBackend::close) — over any ordered
//! key-value store (redb, sled, RocksDB, LMDB, files…), and this crate
//! provides the three storage traits of agcore memory on top of it:
//!
//! - [`KvStore`]: a [`MemoryStore`](agcore_memory::MemoryStore);
//! - [`KvLongTerm`]: a [`LongTermBackend`](agcore_memory::long_term::LongTermBackend);
//! - [`KvVectors`] ([`open_vectors`]): a [`VectorStore`](agcore_memory::vector::VectorStore);
//! - [`storage`]: all three as one [`Storage`](agcore_memory::Storage), the
//!   shape `agcore` takes a backend in.
//!
//! Records are durable in the backend; searches run in process on the
//! in-memory implementations of agcore-memory, loaded from the backend on
//! open and updated in step with every write, so store searches return
//! the hits and scores of the other backends, and so do long-term
//! searches. Memory use is O(data).
//! [`BTreeBackend`] is the reference implementation, in process memory.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
//! use agcore_memory_kv::{BTreeBackend, KvStore};
//!
//! let backend = Arc::new(BTreeBackend::new());
//! let store = KvStore::open(Arc::clone(&backend), EvictionConfig::none()).await?;
//! store.save(MemoryItem::new("note:1", "用户喜欢喝绿茶")).await?;
//! drop(store);
//! let store = KvStore::open(backend, EvictionConfig::none()).await?;
//! let hits = store.search("绿茶", &SearchOptions::default()).await?;
//! assert_eq!(hits[0].item.id, "note:1");
//! # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
//! ```

mod backend;
mod btree;
mod bundle;
mod codec;
mod long_term;
mod store;
mod vectors;

/// Opens a [`KvVectorBackend`]'s vectors; re-exported so callers need no
/// `agcore-memory` import.
pub use agcore_memory::vector::VectorTables;
pub use backend::{KvBackend, KvError, Op, Rows, Table, WriteBatch};
pub use btree::BTreeBackend;
pub use bundle::storage;
pub use long_term::KvLongTerm;
pub use store::KvStore;
pub use vectors::{KvRows, KvVectorBackend, KvVectors, open_vectors};
