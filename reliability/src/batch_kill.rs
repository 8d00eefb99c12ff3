//! SIGKILL during batched inserts: a child process upserts batches of
//! `BATCH` items (`MemoryStore::save_many`, one transaction) in a loop and
//! prints `committed <batch>` once each call has returned; the parent kills
//! it with SIGKILL at a random moment, `kills` times. After every kill the
//! database must open, pass its integrity check, hold every batch reported
//! committed, and hold every batch whole or not at all.

use std::collections::HashSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

use agcore::memory::{MemoryFilter, MemoryItem};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::error::{HarnessError, ensure};
use crate::target::Target;

/// Items per batch.
pub const BATCH: usize = 200;

fn item(round: usize, batch: usize, i: usize) -> MemoryItem {
    MemoryItem::new(
        format!("r{round}-b{batch}-i{i}"),
        format!("round {round} batch {batch} item {i}: 第{batch}批的第{i}条记录"),
    )
}

/// The child: batches until killed.
///
/// # Errors
/// A write that fails.
pub async fn child(target: &Target, round: usize) -> Result<(), HarnessError> {
    let store = target.open().await?.store();
    println!("ready");
    for batch in 0.. {
        let items = (0..BATCH).map(|i| item(round, batch, i)).collect();
        store.save_many(items).await?;
        println!("committed {batch}");
    }
    Ok(())
}

/// The parent: `kills` rounds of start, random wait, SIGKILL, check.
///
/// # Errors
/// [`HarnessError::Invariant`] when a committed batch is missing or a batch
/// is torn, or the integrity check fails.
pub async fn run(
    target: &Target,
    kills: usize,
    max_delay: Duration,
) -> Result<Value, HarnessError> {
    let exe = std::env::current_exe()?;
    target.open().await?;
    let mut committed_total = 0;
    let mut landed_uncommitted = 0;
    let started = Instant::now();
    for round in 0..kills {
        let mut child = tokio::process::Command::new(&exe)
            .args([
                "batch-child",
                "--url",
                &target.url(),
                "--round",
                &round.to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| HarnessError::Child("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        // Kill only once the child has opened the database and is writing.
        wait_for(&mut lines, "ready").await?;
        let delay = rand::random_range(0..=max_delay.as_millis().max(1) as u64);
        let reader = tokio::spawn(async move {
            let mut committed = HashSet::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(n) = line
                    .strip_prefix("committed ")
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    committed.insert(n);
                }
            }
            committed
        });
        tokio::time::sleep(Duration::from_millis(delay)).await;
        child.start_kill()?;
        child.wait().await?;
        let committed = reader
            .await
            .map_err(|e| HarnessError::Child(e.to_string()))?;
        target.integrity_check().await?;
        let extra = check_round(target, round, &committed).await?;
        committed_total += committed.len();
        landed_uncommitted += extra;
    }
    target.drop_fresh().await?;
    Ok(json!({
        "campaign": "kill-batch",
        "backend": target.kind(),
        "kills": kills,
        "batch_items": BATCH,
        "batches_acknowledged": committed_total,
        "batches_landed_unacknowledged": landed_uncommitted,
        "torn_batches": 0,
        "lost_acknowledged": 0,
        "integrity": "ok",
        "seconds": started.elapsed().as_secs_f64(),
    }))
}

async fn wait_for(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    word: &str,
) -> Result<(), HarnessError> {
    while let Some(line) = lines.next_line().await? {
        if line == word {
            return Ok(());
        }
    }
    Err(HarnessError::Child(format!(
        "the child ended before `{word}`"
    )))
}

/// Checks one round; returns how many batches landed without being
/// reported (killed between commit and print: at most one).
async fn check_round(
    target: &Target,
    round: usize,
    committed: &HashSet<usize>,
) -> Result<usize, HarnessError> {
    let store = target.open().await?.store();
    let items = store
        .list(&MemoryFilter::with_prefix(format!("r{round}-")))
        .await?;
    let mut per_batch: std::collections::BTreeMap<usize, usize> = Default::default();
    for item in &items {
        let batch = item
            .id
            .split('-')
            .nth(1)
            .and_then(|b| b.strip_prefix('b'))
            .and_then(|b| b.parse::<usize>().ok())
            .ok_or_else(|| HarnessError::Invariant(format!("unexpected id {}", item.id)))?;
        *per_batch.entry(batch).or_default() += 1;
        let i: usize = item
            .id
            .rsplit('i')
            .next()
            .and_then(|i| i.parse().ok())
            .unwrap_or(usize::MAX);
        ensure(item.content == self::item(round, batch, i).content, || {
            format!("{}: content changed", item.id)
        })?;
    }
    for (batch, count) in &per_batch {
        ensure(*count == BATCH, || {
            format!("round {round} batch {batch} is torn: {count} of {BATCH} items")
        })?;
    }
    for batch in committed {
        ensure(per_batch.contains_key(batch), || {
            format!("round {round}: acknowledged batch {batch} is lost")
        })?;
    }
    let extra = per_batch.len() - committed.len();
    ensure(extra <= 1, || {
        format!("round {round}: {extra} batches landed that were never written to completion")
    })?;
    Ok(extra)
}
