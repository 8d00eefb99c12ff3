//! Crash safety: a child process writing in a loop is killed with SIGKILL;
//! every write it reported committed must be in the reopened database, and
//! the database must pass `PRAGMA integrity_check`.
//!
//! The child is this test binary re-executed with [`CHILD_DB_ENV`] set,
//! running only [`crash_child_writer`].
#![cfg(unix)]
#![cfg(test)]
#![allow(clippy::print_stdout)]

use agcore_memory_sqlite::SqliteStore;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore};

/// Path of the database the child writes to; its presence makes the child run.
const CHILD_DB_ENV: &str = "AGCORE_CRASH_CHILD_DB";
/// Tag distinguishing the ids of successive child runs.
const CHILD_ROUND_ENV: &str = "AGCORE_CRASH_CHILD_ROUND";

/// The child: writes forever from several tasks (single saves and batches)
/// and prints `committed <id>` for each write once its future has resolved.
#[test]
#[ignore = "child process of `killed_writer_loses_no_committed_write`"]
fn crash_child_writer() {
    let Ok(path) = std::env::var(CHILD_DB_ENV) else {
        return;
    };
    let round = std::env::var(CHILD_ROUND_ENV).unwrap_or_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let store = Arc::new(SqliteStore::open(&path).await.unwrap());
        let mut tasks = Vec::new();
        for task in 0..4u32 {
            let store = Arc::clone(&store);
            let round = round.clone();
            tasks.push(tokio::spawn(async move {
                for n in 0u64.. {
                    if task == 0 && n % 3 == 0 {
                        let batch: Vec<MemoryItem> = (0..25)
                            .map(|b| {
                                MemoryItem::new(
                                    format!("r{round}:t{task}:{n}:{b}"),
                                    format!("batched memory {n} 批量写入 {b}"),
                                )
                            })
                            .collect();
                        let ids: Vec<String> = batch.iter().map(|i| i.id.clone()).collect();
                        store.save_many(batch).await.unwrap();
                        let mut out = std::io::stdout().lock();
                        for id in ids {
                            writeln!(out, "committed {id}").unwrap();
                        }
                        out.flush().unwrap();
                    } else {
                        let id = format!("r{round}:t{task}:{n}");
                        store
                            .save(MemoryItem::new(
                                id.clone(),
                                format!("single memory {n} 单条写入"),
                            ))
                            .await
                            .unwrap();
                        let mut out = std::io::stdout().lock();
                        writeln!(out, "committed {id}").unwrap();
                        out.flush().unwrap();
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

/// Runs one child against `db`, kills it after `kill_after` reported ids and
/// returns every id it reported (including lines read after the kill).
fn run_child_and_kill(db: &std::path::Path, round: u32, kill_after: usize) -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "--exact",
            &agcore_memory_testkit::libtest_name!("crash_child_writer"),
            "--nocapture",
            "--ignored",
            "--test-threads=1",
        ])
        .env(CHILD_DB_ENV, db)
        .env(CHILD_ROUND_ENV, round.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut reported = Vec::new();
    let mut lines = stdout.lines();
    let deadline = Instant::now() + Duration::from_secs(120);
    while reported.len() < kill_after {
        assert!(
            Instant::now() < deadline,
            "child too slow: {} ids",
            reported.len()
        );
        match lines.next() {
            Some(line) => {
                if let Some(id) = line.unwrap().strip_prefix("committed ") {
                    reported.push(id.to_owned());
                }
            }
            None => panic!("child exited early after {} ids", reported.len()),
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    // Lines printed before the kill were reported committed too.
    for line in lines {
        let Ok(line) = line else { break };
        if let Some(id) = line.strip_prefix("committed ") {
            reported.push(id.to_owned());
        }
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "the child must have been killed");
    reported
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_writer_loses_no_committed_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let mut all_reported: HashSet<String> = HashSet::new();
    for (round, kill_after) in [(0u32, 400usize), (1, 1500), (2, 3000)] {
        let reported = run_child_and_kill(&db, round, kill_after);
        assert!(reported.len() >= kill_after);
        all_reported.extend(reported);

        let store = SqliteStore::open(&db).await.unwrap();
        let stored: HashSet<String> = store
            .list(&MemoryFilter::all())
            .await
            .unwrap()
            .into_iter()
            .map(|i| i.id)
            .collect();
        let missing: Vec<&String> = all_reported.difference(&stored).collect();
        assert!(
            missing.is_empty(),
            "round {round}: {} committed ids lost, e.g. {:?}",
            missing.len(),
            missing.first()
        );
        assert!(store.integrity_check().await.unwrap().is_empty());
        drop(store);

        let conn = rusqlite::Connection::open(&db).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
    }
}
