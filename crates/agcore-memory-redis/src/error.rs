//! [`RedisStoreError`]: the failures of this crate, converted to
//! [`MemoryError`] at the API boundary.

use agcore_memory::MemoryError;

/// A failure of the Redis backend.
///
/// [`From`] maps a server that cannot be reached, a dropped connection, a
/// timeout or a server that is loading, busy or failing over (`LOADING`,
/// `BUSY`, `TRYAGAIN`, `MASTERDOWN`) to [`MemoryError::Unavailable`] (retry
/// later; the store reconnects by itself), other errors to
/// [`MemoryError::Storage`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisStoreError {
    /// The server or the connection reported an error.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// A memory-layer error (invalid input, serialization, …).
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

impl RedisStoreError {
    /// Whether retrying later may succeed (see the type's docs).
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Redis(err) => is_transient(err),
            Self::Memory(err) => err.is_recoverable(),
        }
    }
}

fn is_transient(err: &redis::RedisError) -> bool {
    err.is_io_error()
        || err.is_connection_dropped()
        || err.is_connection_refusal()
        || err.is_timeout()
        || err
            .code()
            .is_some_and(|code| matches!(code, "LOADING" | "BUSY" | "TRYAGAIN" | "MASTERDOWN"))
}

agcore_memory::driver_error!(RedisStoreError::Memory);
