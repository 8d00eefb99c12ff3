//! [`PostgresError`]: the failures of this crate, converted to
//! [`MemoryError`] at the API boundary.

use agcore_memory::MemoryError;

/// A failure of the PostgreSQL backend.
///
/// Public APIs return [`MemoryError`]; [`From`] maps a server that cannot be
/// reached, a lost connection, a pool timeout, a server shutting down or
/// refusing connections (SQLSTATE classes 08, 57P0x, 53300) and serialization
/// failures or deadlocks (40001, 40P01) to [`MemoryError::Unavailable`]
/// (retry later); other server errors to [`MemoryError::Storage`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PostgresError {
    /// The server or the connection reported an error. Its message names the
    /// server's SQLSTATE code, message, detail and hint when the server sent them.
    #[error("postgres: {}", describe(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// No pooled connection could be had.
    #[error("postgres: connection pool: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    /// A memory-layer error (invalid input, serialization, …).
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// A driver error as text: for a server error its SQLSTATE code, message, and
/// detail and hint when present (the driver's own text says only "db error").
fn describe(err: &tokio_postgres::Error) -> String {
    let Some(db) = err.as_db_error() else {
        return err.to_string();
    };
    let mut text = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
    if let Some(detail) = db.detail() {
        text.push_str(&format!(" (detail: {detail})"));
    }
    if let Some(hint) = db.hint() {
        text.push_str(&format!(" (hint: {hint})"));
    }
    text
}

impl PostgresError {
    /// Whether retrying later may succeed (see the type's docs).
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Postgres(err) => is_transient(err),
            Self::Pool(err) => pool_is_transient(err),
            Self::Memory(err) => err.is_recoverable(),
        }
    }
}

/// SQLSTATE codes after which the same request may succeed later.
fn transient_code(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("57P0")
        || matches!(code, "53300" | "40001" | "40P01" | "55P03")
}

fn is_transient(err: &tokio_postgres::Error) -> bool {
    if err.is_closed() {
        return true;
    }
    if let Some(db) = err.as_db_error() {
        return transient_code(db.code().code());
    }
    // No server error: an I/O failure, a refused or timed-out connection.
    std::error::Error::source(err).is_some_and(|source| source.is::<std::io::Error>())
        || err.to_string().contains("timed out")
}

fn pool_is_transient(err: &deadpool_postgres::PoolError) -> bool {
    use deadpool_postgres::PoolError;
    match err {
        PoolError::Timeout(_) => true,
        PoolError::Backend(err) => is_transient(err) || err.as_db_error().is_none(),
        _ => false,
    }
}

/// Names text PostgreSQL cannot store (a NUL character: bad input, nothing
/// written), for [`MemoryError::InvalidInput`].
fn refused_text(err: &PostgresError) -> Option<&'static str> {
    let PostgresError::Postgres(err) = err else {
        return None;
    };
    err.as_db_error()
        .is_some_and(|db| matches!(db.code().code(), "22021" | "22P05"))
        .then_some("text PostgreSQL cannot store")
}

agcore_memory::driver_error!(PostgresError::Memory, refused: refused_text);

/// Whether the server rolled the transaction back for a lock conflict: a
/// deadlock (SQLSTATE 40P01) or a serialization failure (40001). PostgreSQL
/// breaks a deadlock by failing one of the transactions in it, which then
/// holds nothing and may simply run again ("applications using this level
/// must be prepared to retry transactions due to serialization failures",
/// PostgreSQL manual, *Transaction Isolation*; the same holds for
/// deadlocks, *Explicit Locking*): the check given to
/// [`agcore_memory::retry::retry_lock_conflicts`].
pub(crate) fn is_lock_conflict(err: &PostgresError) -> bool {
    let PostgresError::Postgres(err) = err else {
        return false;
    };
    err.as_db_error()
        .is_some_and(|db| matches!(db.code().code(), "40P01" | "40001"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_and_shutdown_codes_are_transient() {
        for code in [
            "08006", "08001", "57P01", "57P03", "53300", "40001", "40P01",
        ] {
            assert!(transient_code(code), "{code}");
        }
        for code in ["23505", "42P01", "22P02"] {
            assert!(!transient_code(code), "{code}");
        }
    }

    #[test]
    fn other_errors_are_not_lock_conflicts() {
        assert!(!is_lock_conflict(&PostgresError::Memory(
            MemoryError::Storage("deadlock".into())
        )));
    }
}
