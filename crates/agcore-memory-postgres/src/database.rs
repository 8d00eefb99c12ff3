//! [`PostgresDatabase`]: a connection pool on one PostgreSQL database (and
//! schema), migrated on open; the store and long-term memory on it.

use std::sync::Arc;

use agcore_memory::retriever::ContextField;
use agcore_memory::server::ServerOptions;
use agcore_memory::{BackendInfo, EvictionConfig, MemoryError, Storage};
use deadpool_postgres::Pool;

use crate::builder::PostgresDatabaseBuilder;
use crate::error::{PostgresError, Result};
use crate::migrate::Component;
use crate::{PostgresLongTerm, PostgresStore};

/// Every schema component of this library, in migration order.
const COMPONENTS: [&Component; 2] = [
    &crate::store::schema::COMPONENT,
    &crate::long_term::schema::COMPONENT,
];

/// A PostgreSQL database holding agcore memory: a connection pool, the
/// schema migrated on open, and the store on it. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct PostgresDatabase {
    pool: Pool,
    location: String,
    version: String,
    eviction: EvictionConfig,
    context: Option<ContextField>,
}

impl std::fmt::Debug for PostgresDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresDatabase")
            .field("location", &self.location)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl PostgresDatabase {
    /// Options for opening a database.
    pub fn builder() -> PostgresDatabaseBuilder {
        PostgresDatabaseBuilder::default()
    }

    /// Connects to `url` (`postgres://user:password@host:port/database`, the
    /// [libpq URI format](https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS))
    /// with the default options and migrates the schema.
    ///
    /// # Errors
    /// As [`PostgresDatabaseBuilder::open`].
    pub async fn open(url: &str) -> Result<Self, MemoryError> {
        Self::builder().open(url).await
    }

    /// Uses a pool the caller built (its connections must reach one database;
    /// set the schema through the connections' `search_path`), migrating the
    /// schema; the store gets the default context field
    /// ([`PostgresDatabaseBuilder::context_field`]).
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] when no connection can be made;
    /// [`MemoryError::Storage`] when the schema cannot be migrated.
    pub async fn from_pool(pool: Pool, eviction: EvictionConfig) -> Result<Self, MemoryError> {
        // The caller's pool keeps its own timeouts; the option's goes unused.
        let mut options = ServerOptions::new(std::time::Duration::ZERO);
        options.eviction = eviction;
        Self::start(pool, "postgres (caller's pool)".to_owned(), options).await
    }

    /// Checks the server version and migrates the schema on `pool`, the
    /// store's context fields derived with the options' context field.
    pub(crate) async fn start(
        pool: Pool,
        location: String,
        options: ServerOptions,
    ) -> Result<Self, MemoryError> {
        let ServerOptions {
            eviction, context, ..
        } = options;
        let mut client = pool.get().await.map_err(PostgresError::from)?;
        let version: String = client
            .query_one("SHOW server_version", &[])
            .await
            .map_err(PostgresError::from)?
            .try_get(0)
            .map_err(PostgresError::from)?;
        crate::migrate::migrate(&mut client, &COMPONENTS, context.as_ref()).await?;
        let version = format!(
            "PostgreSQL {}",
            version.split_whitespace().next().unwrap_or_default()
        );
        Ok(Self {
            pool,
            location,
            version,
            eviction,
            context,
        })
    }

    /// The connection pool.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// The server version, e.g. `PostgreSQL 15.18`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The memory store on this database.
    pub fn store(&self) -> PostgresStore {
        crate::store::store(
            self.pool.clone(),
            self.eviction.clone(),
            self.context.clone(),
        )
    }

    /// The long-term memory backend on this database.
    pub fn long_term(&self) -> PostgresLongTerm {
        crate::long_term::long_term(self.pool.clone())
    }

    /// The store, long-term memory and vectors as a [`Storage`] (password redacted in
    /// its location).
    pub fn storage(&self) -> Storage {
        Storage::new(
            BackendInfo::new("postgres", self.location.clone(), self.version.clone()),
            Arc::new(self.store()),
        )
        .with_long_term(Arc::new(self.long_term()))
        .with_vectors(Arc::new(self.clone()))
    }

    /// The schema versions of this database's components (`store`, …), as
    /// recorded in `agcore_schema`.
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] / [`MemoryError::Storage`] from the server.
    pub async fn schema_versions(&self) -> Result<Vec<(String, i64)>, MemoryError> {
        let client = self.pool.get().await.map_err(PostgresError::from)?;
        Ok(crate::migrate::versions(&client).await?)
    }
}
