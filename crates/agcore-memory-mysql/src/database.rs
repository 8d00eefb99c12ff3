//! [`MysqlDatabase`]: a connection pool on one MySQL or MariaDB database,
//! migrated on open; the store and long-term memory on it.

use std::sync::Arc;
use std::time::Duration;

use agcore_memory::retriever::ContextField;
use agcore_memory::{BackendInfo, EvictionConfig, MemoryError, Storage};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Pool};

use crate::builder::MysqlDatabaseBuilder;
use crate::error::{MysqlError, Result};
use crate::{MysqlLongTerm, MysqlStore};

/// A pool and the time a caller may wait for one of its connections.
#[derive(Clone)]
pub(crate) struct Connections {
    pool: Pool,
    timeout: Duration,
    closed: Arc<std::sync::atomic::AtomicBool>,
}

impl Connections {
    /// A connection, within the acquire timeout.
    ///
    /// # Errors
    /// [`MysqlError::Timeout`] or the driver's error (unavailable).
    pub(crate) async fn get(&self) -> Result<Conn> {
        if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Err(crate::error::storage("mysql: this handle is closed"));
        }
        match tokio::time::timeout(self.timeout, self.pool.get_conn()).await {
            Ok(conn) => Ok(conn?),
            Err(_) => Err(MysqlError::Timeout(self.timeout)),
        }
    }

    /// Marks the long-term memory closed: later calls fail. The pool itself
    /// closes with [`MysqlDatabase::close`] or when its last handle drops.
    pub(crate) fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Release);
    }
}

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
        timeout: Duration,
        eviction: EvictionConfig,
        (context, min_pruned_rows): (Option<ContextField>, u64),
    ) -> Result<Self, MemoryError> {
        let conns = Connections {
            pool,
            timeout,
            closed: Arc::default(),
        };
        let run = async {
            let mut conn = conns.get().await?;
            let version: Option<String> = conn.query_first("SELECT VERSION()").await?;
            crate::migrate::migrate(&mut conn, context.as_ref()).await?;
            Ok::<_, MysqlError>(version.unwrap_or_default())
        };
        let version = run.await?;
        let version = if version.to_ascii_lowercase().contains("mariadb") {
            format!(
                "MariaDB {}",
                version.split(['-', ' ']).next().unwrap_or_default()
            )
        } else {
            format!(
                "MySQL {}",
                version.split(['-', ' ']).next().unwrap_or_default()
            )
        };
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
        MysqlStore::new(
            self.conns.clone(),
            self.eviction.clone(),
            (self.context.clone(), self.min_pruned_rows),
        )
    }

    /// The long-term memory backend on this database.
    pub fn long_term(&self) -> MysqlLongTerm {
        MysqlLongTerm::new(self.conns.clone(), self.min_pruned_rows)
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
