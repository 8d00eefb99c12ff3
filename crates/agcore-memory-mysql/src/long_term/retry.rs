//! Write transactions run again when the server rolls them back for a lock
//! conflict (the shared rule, [`agcore_memory::retry`]).

use std::future::Future;

use agcore_memory::MemoryError;
use agcore_memory::retry::retry_lock_conflicts;

use crate::error::{Result, is_retryable_conflict};

/// Runs `op` again while the server rolls it back for a deadlock or a lock
/// wait timeout.
pub(super) async fn retry<T, F, Fut>(op: F) -> Result<T, MemoryError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    retry_lock_conflicts("mysql long-term memory", is_retryable_conflict, op)
        .await
        .map_err(MemoryError::from)
}
