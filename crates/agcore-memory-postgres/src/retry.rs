//! Writes run again when the server rolls their transaction back for a
//! lock conflict: a deadlock (SQLSTATE 40P01) or a serialization failure
//! (40001). PostgreSQL breaks a deadlock by failing one of the transactions
//! in it, which then holds nothing and may simply run again ("applications
//! using this level must be prepared to retry transactions due to
//! serialization failures", PostgreSQL manual, *Transaction Isolation*; the
//! same holds for deadlocks, *Explicit Locking*). Other errors return at
//! once: the shared rule of [`agcore_memory::retry`].

use std::future::Future;

use agcore_memory::retry::retry_lock_conflicts;

use crate::error::{PostgresError, Result};

/// Whether the server rolled the transaction back for a lock conflict.
pub(crate) fn is_lock_conflict(err: &PostgresError) -> bool {
    let PostgresError::Postgres(err) = err else {
        return false;
    };
    err.as_db_error()
        .is_some_and(|db| matches!(db.code().code(), "40P01" | "40001"))
}

/// Runs `op` (one whole transaction) again while it fails with a lock
/// conflict ([`retry_lock_conflicts`]); `what` names it in the debug log.
pub(crate) async fn retry<T, F, Fut>(what: &'static str, op: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    retry_lock_conflicts(what, is_lock_conflict, op).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use agcore_memory::MemoryError;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn other_errors_are_not_run_again() {
        let runs = AtomicUsize::new(0);
        let result: Result<()> = retry("test", || {
            runs.fetch_add(1, Ordering::Relaxed);
            async { Err(PostgresError::Memory(MemoryError::Storage("no".into()))) }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(runs.load(Ordering::Relaxed), 1);
        assert!(!is_lock_conflict(&PostgresError::Memory(
            MemoryError::Storage("deadlock".into())
        )));
    }
}
