//! The PostgreSQL backend of agcore memory: a
//! [`MemoryStore`](agcore_memory::MemoryStore) ([`PostgresStore`]) in tables
//! of a PostgreSQL server, for agents in several processes or on several
//! machines sharing one memory.
//!
//! Long-term memory ([`PostgresLongTerm`]: scopes, four memory types,
//! weights, usage log, archive, dialogue buffer, history) lives in the same
//! database.
//!
//! Open it from a URL with [`open`] (or `agcore::memory::open` with the
//! facade's `postgres` feature), or with [`PostgresDatabase::builder`] for a
//! pool size, timeouts, a schema of its own, eviction and the store's
//! context field. Search is BM25 computed by the server over the same
//! analyzer tokens as the SQLite backend (lowercased words without stop
//! words, stemmed, CJK character bigrams:
//! [`index_terms`](agcore_search::index_terms)); the store adds
//! the BM25F context field of neighbouring turns of a session
//! ([`ContextField`](agcore_memory::retriever::ContextField)), so it ranks
//! as `SqliteStore` and `InMemoryStore` rank; the schema is versioned in
//! `agcore_schema` and migrated on open under an advisory lock. The knowledge wiki, conversation history
//! and session memory run on the store. Errors that a retry may fix (server
//! down, connection lost, pool timeout) are
//! [`MemoryError::Unavailable`](agcore_memory::MemoryError::Unavailable);
//! a write the server fails as a deadlock victim or for a serialization
//! failure runs again first (up to 5 runs).

mod bm25;
mod builder;
mod database;
mod error;
mod long_term;
mod migrate;
mod reindex;
mod store;
mod vectors;

pub use builder::PostgresDatabaseBuilder;
pub use database::PostgresDatabase;
pub use error::PostgresError;
pub use long_term::{PostgresLongTerm, PostgresLongTermDriver};
pub use store::{PostgresStore, PostgresStoreDriver};
pub use vectors::PostgresVectors;

/// Opens the PostgreSQL database named by `url`
/// (`postgres://user:password@host:port/database` or `postgresql://…`) with
/// the default options, migrating its schema, as a
/// [`Storage`](agcore_memory::Storage).
///
/// # Errors
/// As [`PostgresDatabaseBuilder::open`].
pub async fn open(url: &str) -> Result<agcore_memory::Storage, agcore_memory::MemoryError> {
    Ok(PostgresDatabase::open(url).await?.storage())
}
