//! [`MysqlDatabase`]: a connection pool on one MySQL or MariaDB database,
//! migrated on open; the store and long-term memory on it.

use std::sync::Arc;

use agcore_memory::retriever::ContextField;
use agcore_memory::server::ServerOptions;
use agcore_memory::{BackendInfo, EvictionConfig, MemoryError, Storage};
use mysql_async::Pool;
use mysql_async::prelude::Queryable;

use crate::builder::MysqlDatabaseBuilder;
use crate::connections::Connections;
use crate::error::{MysqlError, Result};
use crate::migrate::Component;
use crate::{MysqlLongTerm, MysqlStore};

/// Every schema component of this library, in migration order.
const COMPONENTS: [&Component; 2] = [
    &crate::store::schema::COMPONENT,
    &crate::long_term::schema::COMPONENT,
];

/// A MySQL or MariaDB database holding agcore memory: a connection pool,
/// the schema migrated on open, and the store on it. Cheap to clone;
/// `Send + Sync`.
#[derive(Clone)]
pub struct MysqlDatabase {
    conns: Connections,
    location: String,
    version: String,
    eviction: EvictionConfig,
    context: Option<ContextField>,
    min_pruned_rows: u64,
}

impl std::fmt::Debug for MysqlDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlDatabase")
            .field("location", &self.location)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl MysqlDatabase {
    /// Options for opening a database.
    pub fn builder() -> MysqlDatabaseBuilder {
        MysqlDatabaseBuilder::default()
    }

    /// Connects to `url` (`mysql://user:password@host:port/database`) with
    /// the default options and migrates the schema.
    ///
    /// # Errors
    /// As [`MysqlDatabaseBuilder::open`].
    pub async fn open(url: &str) -> Result<Self, MemoryError> {
        Self::builder().open(url).await
    }

    /// Checks the server version and migrates the schema on `pool`.
    pub(crate) async fn start(
        pool: Pool,
        location: String,
        options: ServerOptions,
        min_pruned_rows: u64,
    ) -> Result<Self, MemoryError> {
        let ServerOptions {
            timeout,
            eviction,
            context,
            ..
        } = options;
        let conns = Connections::new(pool, timeout);
        let run = async {
            let mut conn = conns.get().await?;
            let version: Option<String> = conn.query_first("SELECT VERSION()").await?;
            crate::migrate::migrate(&mut conn, &COMPONENTS, async |conn| {
                crate::reindex::sync(conn).await?;
                crate::long_term::sync_df(conn).await?;
                crate::store::sync_context(conn, context.as_ref()).await?;
                crate::store::sync_df(conn, context.as_ref()).await
            })
            .await?;
            Ok::<_, MysqlError>(version.unwrap_or_default())
        };
        let version = run.await?;
        let number = version.split(['-', ' ']).next().unwrap_or_default();
        let server = if version.to_ascii_lowercase().contains("mariadb") {
            "MariaDB"
        } else {
            "MySQL"
        };
        let version = format!("{server} {number}");
        Ok(Self {
            conns,
            location,
            version,
            eviction,
            context,
            min_pruned_rows,
        })
    }

    /// The pool with its acquire timeout, for this crate's stores.
    pub(crate) fn connections(&self) -> &Connections {
        &self.conns
    }

    /// The connection pool.
    pub fn pool(&self) -> &Pool {
        &self.conns.pool
    }

    /// The server and its version, e.g. `MariaDB 10.11.19`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The memory store on this database.
    pub fn store(&self) -> MysqlStore {
        crate::store::store(
            self.conns.clone(),
            self.eviction.clone(),
            (self.context.clone(), self.min_pruned_rows),
        )
    }

    /// The long-term memory backend on this database.
    pub fn long_term(&self) -> MysqlLongTerm {
        crate::long_term::long_term(self.conns.clone(), self.min_pruned_rows)
    }

    /// The store, long-term memory and vectors as a [`Storage`] (password redacted in
    /// its location).
    pub fn storage(&self) -> Storage {
        Storage::new(
            BackendInfo::new("mysql", self.location.clone(), self.version.clone()),
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
        let run = async {
            let mut conn = self.conns.get().await?;
            crate::migrate::versions(&mut conn).await
        };
        Ok(run.await?)
    }

    /// Closes the pool: waits for connections in use to come back and
    /// disconnects them all.
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] when the server went away meanwhile.
    pub async fn close(self) -> Result<(), MemoryError> {
        self.conns
            .pool
            .disconnect()
            .await
            .map_err(|e| MemoryError::from(MysqlError::from(e)))
    }
}
