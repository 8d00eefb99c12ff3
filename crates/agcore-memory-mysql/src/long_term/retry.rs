//! Write transactions run again when the server rolls them back for a lock
//! conflict.

use std::future::Future;

use agcore_memory::MemoryError;

use crate::error::{Result, is_retryable_conflict};

/// How many times a write transaction runs when the server rolls it back
/// for a deadlock or lock wait timeout.
const WRITE_ATTEMPTS: usize = 5;

/// Runs `op` again while the server rolls it back for a lock conflict.
pub(super) async fn retry<T, F, Fut>(mut op: F) -> Result<T, MemoryError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        match op().await {
            Err(err) if attempt < WRITE_ATTEMPTS && is_retryable_conflict(&err) => {
                tracing::debug!(attempt, "mysql long-term memory: lock conflict; again");
            }
            other => return other.map_err(MemoryError::from),
        }
    }
}
