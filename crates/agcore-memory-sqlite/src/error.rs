//! [`SqliteError`]: the failures of this crate, converted to
//! [`MemoryError`] at the API boundary.

use agcore_memory::MemoryError;
use rusqlite::ErrorCode;

/// A failure of the SQLite backend.
///
/// Every public API returns [`MemoryError`]; this type is what the internals
/// use and what [`From`] turns into a [`MemoryError`]: SQLite's "busy" and
/// "locked" into [`MemoryError::Unavailable`] (retry later), other SQLite
/// errors into [`MemoryError::Storage`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqliteError {
    /// SQLite reported an error.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A memory-layer error (invalid input, serialization, …).
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

impl SqliteError {
    /// Whether retrying later may succeed: the database was busy or locked by
    /// another connection, or the memory-layer error is itself recoverable.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Sqlite(err) => is_busy(err),
            Self::Memory(err) => err.is_recoverable(),
        }
    }
}

fn is_busy(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

impl From<SqliteError> for MemoryError {
    fn from(err: SqliteError) -> Self {
        match err {
            SqliteError::Sqlite(err) if is_busy(&err) => {
                Self::Unavailable(format!("sqlite: {err}"))
            }
            SqliteError::Sqlite(err) => Self::Storage(format!("sqlite: {err}")),
            SqliteError::Memory(err) => err,
        }
    }
}

impl From<serde_json::Error> for SqliteError {
    fn from(err: serde_json::Error) -> Self {
        Self::Memory(err.into())
    }
}

/// A [`MemoryError::Storage`] with this message, as a [`SqliteError`].
pub(crate) fn storage(message: impl Into<String>) -> SqliteError {
    SqliteError::Memory(MemoryError::Storage(message.into()))
}

/// Results of this crate's internals.
pub(crate) type Result<T, E = SqliteError> = std::result::Result<T, E>;
