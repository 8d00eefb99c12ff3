//! [`SqliteStoreBuilder`]: the options of a [`SqliteStore`] and opening one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::pool::Workers;
use super::writer::Writer;
use super::{Durability, SqliteStore, schema};
use crate::{EvictionConfig, MemoryError};

/// Options of a [`SqliteStore`]; build with [`SqliteStore::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct SqliteStoreBuilder {
    eviction: EvictionConfig,
    readers: usize,
    busy_timeout: Duration,
    durability: Durability,
}

impl Default for SqliteStoreBuilder {
    fn default() -> Self {
        Self {
            eviction: EvictionConfig::none(),
            readers: std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4)),
            busy_timeout: Duration::from_secs(5),
            durability: Durability::default(),
        }
    }
}

impl SqliteStoreBuilder {
    /// Eviction applied after every `check_interval` saved items (default: none),
    /// as in [`crate::InMemoryStore`]: TTL drops items created at or before
    /// now − ttl; capacity drops the oldest by `created_at`, then id.
    pub fn eviction(mut self, eviction: EvictionConfig) -> Self {
        self.eviction = eviction;
        self
    }

    /// Number of reader connections (threads) of an on-disk store, ≥ 1
    /// (default: the CPU count clamped to 2–4). In-memory stores read on the writer.
    pub fn readers(mut self, readers: usize) -> Self {
        self.readers = readers.max(1);
        self
    }

    /// How long a connection waits for a lock held by another process before
    /// failing with [`MemoryError::Storage`] (default 5 s).
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }

    /// Commit durability (default [`Durability::ProcessCrash`]).
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Opens (creating if needed) the database file at `path` and migrates its
    /// schema. The name `:memory:` opens a private in-memory database.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the file cannot be opened or created, is
    /// not a SQLite database, cannot use WAL mode, or has a newer schema.
    pub async fn open(self, path: impl AsRef<Path>) -> Result<SqliteStore, MemoryError> {
        let path = path.as_ref().to_path_buf();
        // SQLite's special name would give every reader its own empty database.
        let path = (path.as_os_str() != ":memory:").then_some(path);
        blocking(move || self.open_blocking(path)).await
    }

    /// Opens a private in-memory database (gone when the store is dropped).
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when SQLite fails to start.
    pub async fn open_in_memory(self) -> Result<SqliteStore, MemoryError> {
        blocking(move || self.open_blocking(None)).await
    }

    fn open_blocking(self, path: Option<PathBuf>) -> Result<SqliteStore, MemoryError> {
        let mut conn = match &path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        schema::configure_writer(&conn, path.is_some(), self.durability, self.busy_timeout)?;
        schema::migrate(&mut conn)?;
        let mut readers = Vec::new();
        if let Some(path) = &path {
            for _ in 0..self.readers {
                let reader = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                schema::configure_reader(&reader, self.busy_timeout)?;
                readers.push(reader);
            }
        }
        let workers = Workers::start(Writer::new(conn, self.eviction.clone()), readers)?;
        Ok(SqliteStore {
            workers,
            path,
            eviction: self.eviction,
        })
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, MemoryError> + Send + 'static,
) -> Result<T, MemoryError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        MemoryError::Storage(format!("sqlite memory store: blocking task failed: {e}"))
    })?
}
