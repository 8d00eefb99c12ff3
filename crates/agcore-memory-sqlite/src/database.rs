//! [`SqliteDatabase`]: one SQLite file holding the memory store and long-term
//! memory, opened once, and [`SqliteDatabaseBuilder`], its options.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agcore_memory::retriever::ContextField;
use agcore_memory::{BackendInfo, EvictionConfig, MemoryError, Storage};

use crate::connection::{Database, Durability, Options, blocking};
use crate::long_term::SqliteLongTermDriver;
use crate::{SqliteLongTerm, SqliteStore};

/// A SQLite database file with every agcore component in it — the
/// [`SqliteStore`] (which also holds the knowledge wiki, conversation history
/// and session memory) and [`SqliteLongTerm`] — behind one connection layer:
/// one writer thread with group commit, reader threads (WAL), pragmas set once,
/// and one migration runner with a schema-version table (`agcore_schema`).
/// Files written by earlier releases (one schema per file) open and migrate.
///
/// Cheap to clone; `Send + Sync`. Dropping the last handle (database, store or
/// long-term) lets queued work finish and closes the connections.
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};
/// use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
/// use agcore_memory_sqlite::SqliteDatabase;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_memory::MemoryError> {
/// let dir = tempfile::tempdir().map_err(|e| agcore_memory::MemoryError::Storage(e.to_string()))?;
/// let db = SqliteDatabase::open(dir.path().join("agent.db")).await?;
/// db.store().save(MemoryItem::new("note:1", "Deploys happen on Fridays")).await?;
/// let memory = LongTermMemory::new(db.long_term());
/// let alice = memory.scope("assistant", "alice")?;
/// alice.save(NewMemory::new(MemoryType::User, "tea", "Alice prefers green tea")).await?;
/// assert_eq!(db.store().search("deploys", &SearchOptions::top_k(3)).await?.len(), 1);
/// assert_eq!(alice.search("tea", 3).await?.len(), 1);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct SqliteDatabase {
    db: Arc<Database>,
}

impl SqliteDatabase {
    /// Options: reader connections, busy timeout, durability, store eviction.
    pub fn builder() -> SqliteDatabaseBuilder {
        SqliteDatabaseBuilder::default()
    }

    /// Opens (creating if needed) the database at `path` with default options.
    ///
    /// # Errors
    /// As [`SqliteDatabaseBuilder::open`].
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Self::builder().open(path).await
    }

    /// A private in-memory database with default options.
    ///
    /// # Errors
    /// As [`SqliteDatabaseBuilder::open_in_memory`].
    pub async fn open_in_memory() -> Result<Self, MemoryError> {
        Self::builder().open_in_memory().await
    }

    /// The memory store of this database.
    pub fn store(&self) -> SqliteStore {
        SqliteStore::new(Arc::clone(&self.db))
    }

    /// The long-term memory backend of this database.
    pub fn long_term(&self) -> SqliteLongTerm {
        SqliteLongTerm::new(self.long_term_driver())
    }

    /// The driver of [`Self::long_term`].
    pub(crate) fn long_term_driver(&self) -> SqliteLongTermDriver {
        SqliteLongTermDriver {
            db: Arc::clone(&self.db),
        }
    }

    /// The store, long-term memory and vectors as a [`Storage`].
    pub fn storage(&self) -> Storage {
        let location = self
            .db
            .path()
            .map_or_else(|| ":memory:".to_owned(), |p| p.display().to_string());
        Storage::new(
            BackendInfo::new(
                "sqlite",
                location,
                format!("SQLite {}", rusqlite::version()),
            ),
            Arc::new(self.store()),
        )
        .with_long_term(Arc::new(self.long_term()))
        .with_vectors(Arc::new(self.clone()))
    }

    /// The shared connection layer (for the vector store).
    pub(crate) fn connection(&self) -> Arc<Database> {
        Arc::clone(&self.db)
    }

    /// The database file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.db.path()
    }

    /// The schema version of each component (`bm25`, `long_term`, `store`),
    /// as recorded in `agcore_schema`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn schema_versions(&self) -> Result<Vec<(String, i64)>, MemoryError> {
        self.db.exec(|conn| crate::migrate::versions(conn)).await
    }

    /// Waits for queued writes and closes the connections; every handle on
    /// this database (store, long-term) fails afterwards.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when SQLite fails to close.
    pub async fn close(&self) -> Result<(), MemoryError> {
        self.db.close().await
    }
}

/// Options of a [`SqliteDatabase`]; build with [`SqliteDatabase::builder`].
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct SqliteDatabaseBuilder {
    options: Options,
}

impl SqliteDatabaseBuilder {
    /// The store's eviction, applied after every `check_interval` saved items
    /// (default: none), as in [`agcore_memory::InMemoryStore`]: TTL drops items
    /// created at or before now − ttl; capacity drops the oldest by
    /// `created_at`, then id. Long-term memory is never evicted.
    pub fn eviction(mut self, eviction: EvictionConfig) -> Self {
        self.options.eviction = eviction;
        self
    }

    /// The store's context field (default [`ContextField::default`]: metadata
    /// key `session`, window 1, weight 0.5), as
    /// [`InMemoryStore::with_context_field`](agcore_memory::InMemoryStore::with_context_field):
    /// each item of a sequence is also indexed with its neighbours' terms as
    /// a second BM25F field, kept current as items are saved, replaced and
    /// deleted; `None` ranks every item by plain BM25. The file records the
    /// sequence key and window it was indexed with; opening with others
    /// re-indexes the store once (processes sharing a file should agree).
    pub fn context_field(mut self, context: Option<ContextField>) -> Self {
        self.options.context = context;
        self
    }

    /// Number of reader connections (threads) of an on-disk database, ≥ 1
    /// (default: the CPU count clamped to 2–4). In-memory databases read on the writer.
    pub fn readers(mut self, readers: usize) -> Self {
        self.options.readers = readers.max(1);
        self
    }

    /// How long a connection waits for a lock held by another process before
    /// failing with [`MemoryError::Unavailable`] (default 5 s).
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.options.busy_timeout = timeout;
        self
    }

    /// Commit durability (default [`Durability::ProcessCrash`]).
    pub fn durability(mut self, durability: Durability) -> Self {
        self.options.durability = durability;
        self
    }

    /// Whether WAL checkpoints of an on-disk database run mostly on a
    /// background thread (default `true`). SQLite's automatic checkpoint runs
    /// inside the commit that crosses its threshold, so every few thousand
    /// small writes one write stalls for tens of milliseconds; in the
    /// background, a save's p99 stays near its p50 (see `benches/long_term.rs`).
    /// `false` restores SQLite's automatic checkpoint.
    pub fn background_checkpoint(mut self, enabled: bool) -> Self {
        self.options.background_checkpoint = enabled;
        self
    }

    /// Opens (creating if needed) the database file at `path` and migrates its
    /// schema. The name `:memory:` opens a private in-memory database.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the file cannot be opened or created, is
    /// not a SQLite database, cannot use WAL mode, holds an unknown layout or
    /// a component newer than this library.
    pub async fn open(self, path: impl AsRef<Path>) -> Result<SqliteDatabase, MemoryError> {
        let path = path.as_ref().to_path_buf();
        // SQLite's special name would give every reader its own empty database.
        let path: Option<PathBuf> = (path.as_os_str() != ":memory:").then_some(path);
        let options = self.options;
        let db = blocking(move || Database::open_blocking(&options, path)).await?;
        Ok(SqliteDatabase { db: Arc::new(db) })
    }

    /// Opens a private in-memory database (gone when the last handle is dropped).
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when SQLite fails to start.
    pub async fn open_in_memory(self) -> Result<SqliteDatabase, MemoryError> {
        let options = self.options;
        let db = blocking(move || Database::open_blocking(&options, None)).await?;
        Ok(SqliteDatabase { db: Arc::new(db) })
    }
}
