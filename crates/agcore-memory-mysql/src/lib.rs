//! The MySQL / MariaDB backend of agcore memory: a
//! [`MemoryStore`](agcore_memory::MemoryStore) ([`MysqlStore`]) and
//! long-term memory ([`MysqlLongTerm`]: scopes, four memory types, weights,
//! usage log, archive, dialogue buffer, history) in tables of a MySQL 8 or
//! MariaDB 10.6+ server, for agents in several processes or on several
//! machines sharing one memory.
//!
//! Open it from a URL with [`open`] (or `agcore::memory::open` with the
//! facade's `mysql` feature), or with [`MysqlDatabase::builder`] for a pool
//! size, an acquire timeout and eviction. Search is the server's
//! `FULLTEXT` index queried with `MATCH … AGAINST (… IN BOOLEAN MODE)`
//! over agcore's own analyzer tokens — lowercased words
//! without stop words, stemmed (Snowball English), CJK character bigrams
//! ([`index_terms`](agcore_search::index_terms)) — each stored as a plain ASCII
//! word (see the crate README), so Chinese is found on MariaDB, which has no
//! `ngram` parser, and nothing depends on the server's full-text settings.
//! The candidates are ranked by BM25 computed in SQL with the same formula
//! and statistics as the SQLite backend, so both rank alike; searches read
//! document frequencies their writers keep and match only the query words
//! that can change their top results (MaxScore), with the same results; a
//! store search whose words are in a large share of the items (and no
//! context field) scans the rows instead of the index, finding the same
//! candidates.
//! The schema is
//! versioned in `agcore_schema` and migrated on open under a named lock. The
//! knowledge wiki, conversation history and session memory run on the
//! store. Embedding vectors live in [`MysqlVectors`]
//! ([`MysqlDatabase::vectors`]): rows of the database searched in process.
//! Errors that a retry may fix (server down, connection lost, no
//! connection in time, deadlock) are
//! [`MemoryError::Unavailable`](agcore_memory::MemoryError::Unavailable).

mod bm25;
mod builder;
mod connections;
mod database;
mod doc_freq;
mod error;
mod long_term;
mod migrate;
mod netaclaw;
mod reindex;
mod row;
mod store;
mod terms;
mod vectors;

/// Opens this backend's vectors ([`VectorTables::vectors`]); re-exported so
/// callers need no `agcore-memory` import.
pub use agcore_memory::vector::VectorTables;
pub use builder::MysqlDatabaseBuilder;
pub use database::MysqlDatabase;
pub use error::MysqlError;
pub use long_term::{MysqlLongTerm, MysqlLongTermDriver};
pub use netaclaw::{NETACLAW_TABLE, NetaclawSource};
pub use store::{MysqlStore, MysqlStoreDriver};
#[cfg(feature = "testkit")]
pub use terms::{FulltextQuery, fulltext_column, fulltext_query};
pub use vectors::{MysqlRows, MysqlVectors};

/// Opens the MySQL or MariaDB database named by `url`
/// (`mysql://user:password@host:port/database`, or `mariadb://…`) with the
/// default options, migrating its schema, as a
/// [`Storage`](agcore_memory::Storage).
///
/// # Errors
/// As [`MysqlDatabaseBuilder::open`].
pub async fn open(url: &str) -> Result<agcore_memory::Storage, agcore_memory::MemoryError> {
    Ok(MysqlDatabase::open(url).await?.storage())
}
