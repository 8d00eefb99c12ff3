//! A full disk during writes: in `dir` (a small file system, such as a
//! tmpfs of a few MiB that the caller mounts) a SQLite memory is filled with
//! saves until the disk refuses. The error must say the disk is full and
//! be reported as not recoverable by retrying at once; reads must still
//! work; after a restart every acknowledged save must be there, whole, and
//! the database must pass its integrity check; once space is freed, saves
//! succeed again.

use std::path::Path;
use std::time::Instant;

use agcore::memory::long_term::{MemoryType, NewMemory};
use agcore::memory::{MemoryError, MemoryItem, SearchOptions};
use serde_json::{Value, json};

use crate::error::{HarnessError, ensure};
use crate::target::Target;

/// Bytes of the ballast file written first and deleted to free space.
const BALLAST: usize = 512 * 1024;

fn text(n: usize) -> String {
    format!(
        "entry {n}: {} 第{n}条",
        "the quick brown fox jumps over the lazy dog ".repeat(40)
    )
}

/// Runs the campaign in `dir`.
///
/// # Errors
/// [`HarnessError::Invariant`] when the disk never fills, the error is not
/// clear, an acknowledged save is lost or the integrity check fails.
pub async fn run(dir: &Path) -> Result<Value, HarnessError> {
    let started = Instant::now();
    let ballast = dir.join("ballast");
    std::fs::write(&ballast, vec![7_u8; BALLAST])?;
    let target = Target::Sqlite(dir.join("memory.db"));
    let storage = target.open().await?;
    let store = storage.store();
    let memory = storage.long_term()?;
    let scope = memory.scope("reliability", "disk")?;
    let mut acknowledged = Vec::new();
    let mut long_term_saved = Vec::new();
    let mut first_error: Option<MemoryError> = None;
    for n in 0..1_000_000 {
        // Alternate the store and long-term memory: both write paths meet the full disk.
        let result = if n % 2 == 0 {
            store
                .save(MemoryItem::new(format!("item-{n}"), text(n)))
                .await
        } else {
            scope
                .save(NewMemory::new(MemoryType::Project, "note", text(n)))
                .await
                .map(|outcome| long_term_saved.push(outcome.entry.content))
        };
        match result {
            Ok(()) if n % 2 == 0 => acknowledged.push(n),
            Ok(()) => {}
            Err(err) => {
                first_error = Some(err);
                break;
            }
        }
    }
    let err = first_error.ok_or_else(|| HarnessError::Invariant("the disk never filled".into()))?;
    let message = err.to_string();
    ensure(message.to_lowercase().contains("full"), || {
        format!("the error does not say the disk is full: {message}")
    })?;
    ensure(!err.is_recoverable(), || {
        format!("a full disk is reported as recoverable: {message}")
    })?;
    // Further saves either fail the same clear way or (when space was given
    // back: the failed transaction's pages, a checkpoint resetting the WAL)
    // succeed and count as acknowledged — until the disk is full again.
    // Twenty refusals in a row end it; a disk that never refuses again breaks
    // the invariant.
    let (mut refused_in_a_row, mut accepted_after) = (0, 0);
    for n in 1_000_000..1_100_000 {
        match store
            .save(MemoryItem::new(format!("item-{n}"), text(n)))
            .await
        {
            Ok(()) => {
                acknowledged.push(n);
                accepted_after += 1;
                refused_in_a_row = 0;
            }
            Err(err) => {
                refused_in_a_row += 1;
                ensure(err.to_string().to_lowercase().contains("full"), || {
                    format!("a later save failed without saying why: {err}")
                })?;
                if refused_in_a_row == 20 {
                    break;
                }
            }
        }
    }
    ensure(refused_in_a_row == 20, || {
        "saves kept succeeding on a full disk".into()
    })?;
    let hits = store
        .search("quick brown fox", &SearchOptions::top_k(3))
        .await?;
    ensure(!hits.is_empty(), || "search fails on a full disk".into())?;
    drop(scope);
    memory.close().await?;
    drop(store);
    drop(storage);

    // Restart (still full): everything acknowledged is there, the file is sound.
    target.integrity_check().await?;
    let storage = target.open().await?;
    let store = storage.store();
    for n in &acknowledged {
        let item = store.get(&format!("item-{n}")).await?;
        ensure(item.is_some_and(|i| i.content == text(*n)), || {
            format!("acknowledged save item-{n} is lost or changed")
        })?;
    }
    let scope = storage.long_term()?.scope("reliability", "disk")?;
    for content in &long_term_saved {
        ensure(scope.find_by_content(content).await?.is_some(), || {
            "an acknowledged long-term save is lost".into()
        })?;
    }
    // Free space: writes work again.
    std::fs::remove_file(&ballast)?;
    store.save(MemoryItem::new("after-free", text(1))).await?;
    ensure(store.get("after-free").await?.is_some(), || {
        "save after freeing space is lost".into()
    })?;
    drop(scope);
    drop(store);
    drop(storage);
    target.integrity_check().await?;
    Ok(json!({
        "campaign": "disk-full",
        "backend": "sqlite",
        "acknowledged_store_saves": acknowledged.len(),
        "acknowledged_long_term_saves": long_term_saved.len(),
        "saves_accepted_after_the_first_refusal": accepted_after,
        "error": message,
        "lost": 0,
        "integrity": "ok",
        "saves_after_freeing_space": "ok",
        "seconds": started.elapsed().as_secs_f64(),
    }))
}
