//! [`KvBackend`]: the whole contract a storage engine implements, with its
//! [`Table`]s, [`WriteBatch`]es and [`KvError`].

use async_trait::async_trait;

/// The tables the shared layer stores its records in. A backend keeps one
/// ordered map of byte keys to byte values per table (a redb table, a
/// key prefix, a column family, a directory…), named by [`Table::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// [`MemoryStore`](agcore_memory::MemoryStore) items, by id.
    Items,
    /// Long-term entries, by scope and id.
    Entries,
    /// Long-term history rows, by scope and entry id.
    History,
    /// Long-term usage-log rows, by scope and entry id.
    Usage,
    /// Long-term dialogue-buffer turns, by scope and turn id.
    Turns,
    /// Vectors, by namespace and id.
    Vectors,
    /// Small settings: id counters, the embedding space of the vectors.
    Meta,
}

impl Table {
    /// Every table, in declaration order.
    pub const ALL: [Self; 7] = [
        Self::Items,
        Self::Entries,
        Self::History,
        Self::Usage,
        Self::Turns,
        Self::Vectors,
        Self::Meta,
    ];

    /// A stable name (lowercase ASCII), for backends that name their tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::Items => "items",
            Self::Entries => "lt_entries",
            Self::History => "lt_history",
            Self::Usage => "lt_usage",
            Self::Turns => "lt_turns",
            Self::Vectors => "vectors",
            Self::Meta => "meta",
        }
    }
}

/// One change of a [`WriteBatch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Sets `key` of `table` to `value` (insert or replace).
    Put {
        /// The table.
        table: Table,
        /// The key.
        key: Vec<u8>,
        /// The new value.
        value: Vec<u8>,
    },
    /// Removes `key` of `table` (no error when absent).
    Delete {
        /// The table.
        table: Table,
        /// The key.
        key: Vec<u8>,
    },
}

/// Changes applied together by [`KvBackend::write`], in order (a later
/// change of the same key wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteBatch {
    /// The changes, in order.
    pub ops: Vec<Op>,
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a put.
    pub fn put(&mut self, table: Table, key: Vec<u8>, value: Vec<u8>) {
        self.ops.push(Op::Put { table, key, value });
    }

    /// Adds a delete.
    pub fn delete(&mut self, table: Table, key: Vec<u8>) {
        self.ops.push(Op::Delete { table, key });
    }

    /// Whether the batch holds no change.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// How many changes the batch holds.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
}

/// The errors of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KvError {
    /// The backend failed (I/O, transaction, lock…); the message says why.
    #[error("key-value backend: {0}")]
    Backend(String),
    /// The backend was closed.
    #[error("key-value backend is closed")]
    Closed,
    /// A stored record could not be decoded (a corrupt or foreign value).
    #[error("corrupt record in table `{table}`: {reason}")]
    Corrupt {
        /// The table name.
        table: &'static str,
        /// What is wrong.
        reason: String,
    },
}

impl KvError {
    /// A [`KvError::Backend`] from any displayable error.
    pub fn backend(error: impl std::fmt::Display) -> Self {
        Self::Backend(error.to_string())
    }
}

impl From<KvError> for agcore_memory::MemoryError {
    fn from(error: KvError) -> Self {
        Self::Storage(error.to_string())
    }
}

/// Byte keys and values of one table, in ascending key order.
pub type Rows = Vec<(Vec<u8>, Vec<u8>)>;

/// A durable ordered key-value store: everything a backend implements.
///
/// The shared layer ([`KvStore`](crate::KvStore),
/// [`KvLongTerm`](crate::KvLongTerm), [`KvVectors`](crate::KvVectors))
/// keeps its records in [`Table`]s of a `KvBackend` and serves reads and
/// searches from in-process indexes loaded at open. Implementations are
/// `Send + Sync` and must not block the async runtime for long (move
/// blocking I/O to `tokio::task::spawn_blocking` when it may be slow).
#[async_trait]
pub trait KvBackend: Send + Sync + 'static {
    /// The value of `key` in `table`, `None` when absent.
    ///
    /// # Errors
    /// [`KvError::Backend`] / [`KvError::Closed`].
    async fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, KvError>;

    /// Every row of `table` whose key starts with `prefix` (all rows for an
    /// empty prefix), in ascending byte order of the keys.
    ///
    /// # Errors
    /// [`KvError::Backend`] / [`KvError::Closed`].
    async fn scan(&self, table: Table, prefix: &[u8]) -> Result<Rows, KvError>;

    /// Applies every change of `batch` atomically (all or nothing), in
    /// order, and durably: once it returns `Ok`, the changes survive a
    /// crash and a reopen.
    ///
    /// # Errors
    /// [`KvError::Backend`] / [`KvError::Closed`]; nothing is written then.
    async fn write(&self, batch: WriteBatch) -> Result<(), KvError>;

    /// Flushes and releases resources; later calls may fail with
    /// [`KvError::Closed`]. The default does nothing.
    ///
    /// # Errors
    /// [`KvError::Backend`] when closing fails.
    async fn close(&self) -> Result<(), KvError> {
        Ok(())
    }
}
