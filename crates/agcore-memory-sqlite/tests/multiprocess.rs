//! Eight OS processes save 2,000 long-term memories each into one database
//! file at once (this test binary re-run as children): every private memory
//! is there exactly once, the 50 texts that every process saves are merged
//! into one entry each, and ids are unique.
#![cfg(test)]

use std::collections::HashSet;
use std::process::{Command, Stdio};

use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory};
use agcore_memory_sqlite::SqliteLongTerm;

const PROCESSES: usize = 8;
const SAVES: usize = 2_000;
const SHARED: usize = 50;
const CHILD_DB_ENV: &str = "AGCORE_MULTIPROCESS_DB";
const CHILD_ID_ENV: &str = "AGCORE_MULTIPROCESS_CHILD";

/// Every 40th save of each process is one of the shared texts.
fn text(process: usize, n: usize) -> String {
    if n.is_multiple_of(SAVES / SHARED) {
        format!("Shared fact number {}", n / (SAVES / SHARED))
    } else {
        format!("Process {process} private fact {n} 进程{process}事实{n}")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "child process of `eight_processes_lose_and_double_nothing`"]
async fn multiprocess_child_writer() {
    let (Ok(path), Ok(id)) = (std::env::var(CHILD_DB_ENV), std::env::var(CHILD_ID_ENV)) else {
        return;
    };
    let process: usize = id.parse().unwrap();
    let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
    let scope = memory.scope("agent", "shared-user").unwrap();
    for n in 0..SAVES {
        // As an application would: a recoverable error (the database stayed
        // locked past the busy timeout on a loaded machine) is retried; the
        // save either happened whole or not at all, so a retry cannot double it.
        let mut attempt = 0;
        loop {
            match scope
                .save(NewMemory::new(MemoryType::User, "fact", text(process, n)))
                .await
            {
                Ok(_) => break,
                Err(err) if err.is_recoverable() && attempt < 20 => {
                    attempt += 1;
                    eprintln!("process {process} save {n}: retrying after {err}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(err) => panic!("process {process} save {n} failed: {err}"),
            }
        }
    }
    memory.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_processes_lose_and_double_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    // Create and migrate the file first, as a deployment would.
    let setup = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
    setup.close().await.unwrap();

    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|process| {
            Command::new(&exe)
                .args([
                    "--exact",
                    &agcore_memory_testkit::libtest_name!("multiprocess_child_writer"),
                    "--ignored",
                    "--test-threads=1",
                    "--nocapture",
                ])
                .env(CHILD_DB_ENV, &path)
                .env(CHILD_ID_ENV, process.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a child process failed");
    }

    let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
    let scope = memory.scope("agent", "shared-user").unwrap();
    let entries = scope.list(&ListRequest::all()).await.unwrap();
    let private = PROCESSES * (SAVES - SHARED);
    assert_eq!(entries.len(), private + SHARED);
    let ids: HashSet<i64> = entries.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), entries.len(), "ids are unique");
    let contents: HashSet<&str> = entries.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents.len(), entries.len(), "no content doubled");
    for process in 0..PROCESSES {
        for n in (0..SAVES).filter(|n| !n.is_multiple_of(SAVES / SHARED)) {
            assert!(
                contents.contains(text(process, n).as_str()),
                "lost {process}/{n}"
            );
        }
    }
    for k in 0..SHARED {
        // Saved by all eight processes, stored once.
        assert!(contents.contains(format!("Shared fact number {k}").as_str()));
    }
}
