//! [`SqliteStoreBuilder`]: the options of a [`SqliteStore`] and opening one.

use std::path::Path;
use std::time::Duration;

use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, MemoryError};

use super::{Durability, SqliteStore};
use crate::SqliteDatabaseBuilder;

/// Options of a [`SqliteStore`]; build with [`SqliteStore::builder`]. The
/// options are the database's ([`SqliteDatabaseBuilder`]); this builder opens
/// the database and returns its store.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct SqliteStoreBuilder {
    database: SqliteDatabaseBuilder,
}

impl SqliteStoreBuilder {
    /// See [`SqliteDatabaseBuilder::eviction`].
    pub fn eviction(mut self, eviction: EvictionConfig) -> Self {
        self.database = self.database.eviction(eviction);
        self
    }

    /// The context field of neighbouring items (default
    /// [`ContextField::default`]; `None`: plain BM25), as
    /// [`InMemoryStore::with_context_field`](agcore_memory::InMemoryStore::with_context_field).
    /// See [`SqliteDatabaseBuilder::context_field`].
    pub fn context_field(mut self, context: Option<ContextField>) -> Self {
        self.database = self.database.context_field(context);
        self
    }

    /// See [`SqliteDatabaseBuilder::readers`].
    pub fn readers(mut self, readers: usize) -> Self {
        self.database = self.database.readers(readers);
        self
    }

    /// See [`SqliteDatabaseBuilder::busy_timeout`].
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.database = self.database.busy_timeout(timeout);
        self
    }

    /// See [`SqliteDatabaseBuilder::durability`].
    pub fn durability(mut self, durability: Durability) -> Self {
        self.database = self.database.durability(durability);
        self
    }

    /// Opens the database at `path` and returns its store.
    ///
    /// # Errors
    /// As [`SqliteDatabaseBuilder::open`].
    pub async fn open(self, path: impl AsRef<Path>) -> Result<SqliteStore, MemoryError> {
        Ok(self.database.open(path).await?.store())
    }

    /// Opens a private in-memory database and returns its store.
    ///
    /// # Errors
    /// As [`SqliteDatabaseBuilder::open_in_memory`].
    pub async fn open_in_memory(self) -> Result<SqliteStore, MemoryError> {
        Ok(self.database.open_in_memory().await?.store())
    }
}
