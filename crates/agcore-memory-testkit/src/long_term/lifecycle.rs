//! Closing a backend.

use std::fmt::Debug;

use crate::{CheckFailure, CheckResult};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory};

fn expect_storage<T: Debug>(what: &str, result: Result<T, MemoryError>) -> CheckResult {
    match result {
        Err(MemoryError::Storage(_)) => Ok(()),
        other => Err(CheckFailure(format!(
            "{what} after close: expected a Storage error, got {other:?}"
        ))),
    }
}

/// `close` succeeds on a memory in use; afterwards reads and writes
/// (save, get, list, search, buffer, scopes) fail with
/// [`MemoryError::Storage`] instead of hanging or succeeding.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_close(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let e = m
        .save(NewMemory::new(MemoryType::User, "", "Likes green tea"))
        .await?
        .entry;
    m.buffer_append("s1", "hi", "hello").await?;
    memory.close().await?;
    expect_storage(
        "save",
        m.save(NewMemory::new(MemoryType::User, "", "After close"))
            .await,
    )?;
    expect_storage("get", m.get(e.id).await)?;
    expect_storage("list", m.list(&ListRequest::all()).await)?;
    expect_storage("search", m.search("green tea", 5).await)?;
    expect_storage("buffer_append", m.buffer_append("s1", "a", "b").await)?;
    expect_storage("scopes", memory.scopes().await)
}
