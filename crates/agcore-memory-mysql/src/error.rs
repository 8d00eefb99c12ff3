//! [`MysqlError`]: the failures of this crate, converted to [`MemoryError`]
//! at the API boundary.

use agcore_memory::MemoryError;

/// A failure of the MySQL / MariaDB backend.
///
/// Public APIs return [`MemoryError`]; [`From`] maps a server that cannot be
/// reached, a lost connection, a connection that could not be had in time,
/// a server shutting down or out of connections (errors 1040, 1053, 1927)
/// and lock timeouts or deadlocks (1205, 1213) to
/// [`MemoryError::Unavailable`] (retry later); values the server refuses
/// (1406 data too long, 1366 incorrect value) to
/// [`MemoryError::InvalidInput`]; other server errors to
/// [`MemoryError::Storage`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MysqlError {
    /// The server, the connection or the driver reported an error.
    #[error("mysql: {0}")]
    Mysql(#[from] mysql_async::Error),
    /// No connection could be had within the acquire timeout.
    #[error("mysql: no connection within {0:?}")]
    Timeout(std::time::Duration),
    /// A memory-layer error (invalid input, serialization, …).
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// Server error codes after which the same request may succeed later.
pub(crate) fn transient_code(code: u16) -> bool {
    matches!(code, 1040 | 1053 | 1205 | 1213 | 1927 | 1290 | 4031)
}

/// Server error codes for values the server will not store.
fn bad_value_code(code: u16) -> bool {
    matches!(code, 1366 | 1406 | 1264 | 1292)
}

impl MysqlError {
    /// Whether retrying later may succeed (see the type's docs).
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Mysql(err) => match err {
                mysql_async::Error::Server(server) => transient_code(server.code),
                mysql_async::Error::Io(_) => true,
                mysql_async::Error::Driver(driver) => matches!(
                    driver,
                    mysql_async::DriverError::ConnectionClosed
                        | mysql_async::DriverError::PoolDisconnected
                        | mysql_async::DriverError::UnexpectedPacket { .. }
                        | mysql_async::DriverError::PacketOutOfOrder
                ),
                _ => false,
            },
            Self::Timeout(_) => true,
            Self::Memory(err) => err.is_recoverable(),
        }
    }

    /// The server's error code, if the server answered with an error.
    pub fn server_code(&self) -> Option<u16> {
        match self {
            Self::Mysql(mysql_async::Error::Server(server)) => Some(server.code),
            _ => None,
        }
    }
}

agcore_memory::driver_error!(MysqlError::Memory, refused: refused_value);

/// Names a value the server will not store, for [`MemoryError::InvalidInput`].
fn refused_value(err: &MysqlError) -> Option<&'static str> {
    err.server_code()
        .is_some_and(bad_value_code)
        .then_some("a value MySQL will not store")
}

impl From<mysql_async::FromValueError> for MysqlError {
    fn from(err: mysql_async::FromValueError) -> Self {
        let _ = err;
        storage("mysql: a stored value has an unexpected type")
    }
}

/// Whether `err` is a duplicate key (1062).
pub(crate) fn is_duplicate(err: &MysqlError) -> bool {
    err.server_code() == Some(1062)
}

/// Whether `err` is a deadlock or lock wait timeout: the transaction was
/// rolled back and may simply be run again.
pub(crate) fn is_retryable_conflict(err: &MysqlError) -> bool {
    matches!(err.server_code(), Some(1205 | 1213))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shutdown_and_lock_codes_are_transient() {
        for code in [1040, 1053, 1205, 1213, 1927] {
            assert!(transient_code(code), "{code}");
        }
        for code in [1062, 1146, 1064] {
            assert!(!transient_code(code), "{code}");
        }
    }

    #[test]
    fn a_timeout_is_unavailable() {
        let err: MemoryError = MysqlError::Timeout(std::time::Duration::from_secs(1)).into();
        assert!(matches!(err, MemoryError::Unavailable(_)), "{err}");
        assert!(err.is_recoverable());
    }
}
