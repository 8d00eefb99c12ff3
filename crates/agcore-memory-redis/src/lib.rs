//! The Redis backend of agcore memory: a
//! [`MemoryStore`](agcore_memory::MemoryStore) ([`RedisStore`]) in a Redis
//! server, with native TTL and an index maintained by server-side Lua, for
//! fast shared short-term memory (conversation history, session memory, the
//! knowledge wiki). Redis holds no long-term memory (use SQLite or
//! PostgreSQL for that).
//!
//! Keys, all under the store's prefix `P` (default `agcore`): `P:item:{id}`
//! (hash: content, metadata, seconds, nanoseconds), `P:doc:{id}` (the item's
//! index entry: time key, length, term frequencies, and for a turn of a
//! sequence its sequence and context field), `P:t:{term}` (postings:
//! id → `tf:len`, or `tf:len:ctf:clen` for a term in the context field),
//! `P:g:{sequence}` (a sequence's members in (time, id) order),
//! `P:created` (sorted set, lexicographic (time, id) order),
//! `P:byid` (ids, for prefix filters), `P:expiry` (TTL deadlines),
//! `P:stats`, `P:writes`, `P:meta` (the analyzer and context field settings
//! that built the postings; an index built with others is rebuilt on open,
//! see `reindex.rs`).
//!
//! Embedding vectors live in [`RedisVectors`] ([`RedisStore::vectors`]):
//! `P:vectors`, `P:vector_hashes` and `P:vectors_meta`, searched in process.

mod error;
mod items;
mod reindex;
mod search;
mod store;
mod vectors;

use std::time::Duration;

use agcore_memory::server::{ServerOptions, not_a_url};
use agcore_memory::server_error::naming_server;
use agcore_memory::storage::redact_url;
use agcore_memory::{BackendInfo, MemoryError, Storage};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// Opens this backend's vectors ([`VectorTables::vectors`]); re-exported so
/// callers need no `agcore-memory` import.
pub use agcore_memory::vector::VectorTables;
pub use error::RedisStoreError;
pub use store::RedisStore;
pub use vectors::{RedisRows, RedisVectors};

/// Options of a [`RedisStore`]: key prefix, timeouts, eviction, context
/// field.
#[derive(Debug, Clone)]
#[must_use]
pub struct RedisStoreBuilder {
    prefix: String,
    /// The pool size is unused: one multiplexed connection serves every call.
    options: ServerOptions,
}

impl Default for RedisStoreBuilder {
    fn default() -> Self {
        Self {
            prefix: "agcore".to_owned(),
            options: ServerOptions::new(Duration::from_secs(5)),
        }
    }
}

impl RedisStore {
    /// Options for opening a store.
    pub fn builder() -> RedisStoreBuilder {
        RedisStoreBuilder::default()
    }
}

impl RedisStoreBuilder {
    agcore_memory::server_builder_methods!(options: eviction, context_field);

    /// The key prefix (namespace), default `agcore`; not empty, no `{` or `}`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Connect and response timeout (default 5 s); a server that does not
    /// answer in time gives [`MemoryError::Unavailable`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// Connects to `url` (`redis://[user:password@]host:port/db`).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a malformed URL or prefix;
    /// [`MemoryError::Unavailable`] when the server cannot be reached in
    /// time. Errors never show the password.
    pub async fn open(self, url: &str) -> Result<RedisStore, MemoryError> {
        let shown = redact_url(url);
        if self.prefix.is_empty() || self.prefix.contains(['{', '}']) {
            return Err(MemoryError::InvalidInput(format!(
                "redis key prefix `{}` must be non-empty without braces",
                self.prefix
            )));
        }
        let client = redis::Client::open(url)
            .map_err(|_| not_a_url(&shown, "Redis", "redis://host:port/db"))?;
        let timeout = Some(self.options.timeout);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(timeout)
            .set_response_timeout(timeout)
            .set_number_of_retries(1);
        let conn = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| naming_server(RedisStoreError::from(e).into(), &shown))?;
        let ServerOptions {
            eviction, context, ..
        } = self.options;
        let store = RedisStore::new(conn, &self.prefix, eviction, context);
        store.sync_index().await.map_err(MemoryError::from)?;
        Ok(store)
    }
}

/// Opens the Redis store named by `url` (`redis://host:port/db`, or
/// `rediss://` with TLS where the client supports it) with the default
/// options, as a [`Storage`] with vectors and without long-term memory.
///
/// # Errors
/// As [`RedisStoreBuilder::open`].
pub async fn open(url: &str) -> Result<Storage, MemoryError> {
    let store = RedisStore::builder().open(url).await?;
    Ok(store.storage(redact_url(url)).await)
}

impl RedisStore {
    /// This store and its vectors as a [`Storage`] without long-term memory,
    /// shown at `location` (a redacted URL, a key prefix, …) with the
    /// server's version (`Redis` when the server does not say).
    pub async fn storage(&self, location: impl Into<String>) -> Storage {
        let version = self
            .server_version()
            .await
            .unwrap_or_else(|_| "Redis".to_owned());
        Storage::new(
            BackendInfo::new("redis", location.into(), version),
            std::sync::Arc::new(self.clone()),
        )
        .with_vectors(std::sync::Arc::new(self.clone()))
    }

    /// The server version, e.g. `Redis 7.0.15`.
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] when the server cannot be reached.
    pub async fn server_version(&self) -> Result<String, MemoryError> {
        let mut conn = self.conn.clone();
        let info: String = redis::cmd("INFO")
            .arg("server")
            .query_async(&mut conn)
            .await
            .map_err(RedisStoreError::from)?;
        let version = info
            .lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("unknown")
            .trim();
        Ok(format!("Redis {version}"))
    }
}
