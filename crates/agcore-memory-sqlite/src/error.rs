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

agcore_memory::driver_error!(SqliteError::Memory);
