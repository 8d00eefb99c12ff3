//! SIGKILL during `agcore memory import`: the import of a 6,000-line JSONL
//! file is killed at a random moment, again and again. After every kill the
//! database opens, passes its integrity check (SQLite) and holds exactly a
//! prefix of the file's memories in whole batches, nothing doubled; a
//! final uninterrupted import completes it, skipping what is there.
//!
//! `AGCORE_KILLS` sets the number of kills (default 8; the campaign in
//! `docs/reliability.md` uses 50).
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agcore::memory::long_term::{ArchivedFilter, ListOrder, ListRequest, MemoryType, NewMemory};
use agcore_memory_testkit::service_url;

const LINES: usize = 6_000;
/// Entries per import transaction (`IMPORT_BATCH` of the command).
const BATCH: usize = 256;

fn kills() -> usize {
    std::env::var("AGCORE_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(8)
}

/// Writes the JSONL file (as `agcore memory export` writes it); returns its contents in order.
async fn write_file(path: &Path) -> Vec<String> {
    let memory = agcore::memory::Storage::in_memory().long_term().unwrap();
    let scope = memory.scope("assistant", "source").unwrap();
    for n in 0..LINES {
        let text = format!("imported fact {n}: the invoice {n} was paid on time 第{n}张发票已付");
        scope
            .save(NewMemory::new(
                MemoryType::Project,
                format!("invoice {n}"),
                text,
            ))
            .await
            .unwrap();
    }
    let entries = scope
        .list(&ListRequest::all().order(ListOrder::Created))
        .await
        .unwrap();
    let lines: Vec<String> = entries
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
    entries.into_iter().map(|e| e.content).collect()
}

fn import(file: &Path, db: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agcore"));
    cmd.args(["memory", "import"])
        .arg(file)
        .args(["--user", "alice", "--json", "--db", db])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// The contents of alice's memories, checked to be a whole-batch prefix of `file`.
async fn check(db: &str, file: &[String]) -> usize {
    let memory = agcore::memory::open(db).await.unwrap().long_term().unwrap();
    let mut request = ListRequest::all().order(ListOrder::Created);
    request.archived = ArchivedFilter::Include;
    let held = memory
        .scope("assistant", "alice")
        .unwrap()
        .list(&request)
        .await
        .unwrap();
    memory.close().await.unwrap();
    let contents: HashSet<&str> = held.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents.len(), held.len(), "a memory was imported twice");
    let n = held.len();
    assert!(
        n == file.len() || n % BATCH == 0,
        "{n} memories: a batch was torn"
    );
    for (i, text) in file.iter().enumerate() {
        assert_eq!(
            contents.contains(text.as_str()),
            i < n,
            "not a prefix of the file at line {i}"
        );
    }
    if !db.starts_with("postgres") {
        let store = agcore::memory::SqliteStore::open(db).await.unwrap();
        assert_eq!(store.integrity_check().await.unwrap(), Vec::<String>::new());
    }
    n
}

/// Kills come in pairs: one into an empty database, one into the resumed
/// import; then an uninterrupted import must complete it. `db(n)` names the
/// database of pair `n`.
async fn campaign(db: impl Fn(usize) -> String, scratch: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.jsonl");
    let texts = write_file(&file).await;
    // How long a whole import takes here: kills fall uniformly within it.
    let started = Instant::now();
    assert!(import(&file, scratch).output().unwrap().status.success());
    let full = started.elapsed();
    let mut seen = Vec::new();
    for pair in 0..kills().div_ceil(2) {
        let db = db(pair);
        let mut held = 0;
        for _ in 0..2 {
            let mut child = import(&file, &db).spawn().unwrap();
            let delay = rand::random_range(0..=full.as_millis() as u64);
            std::thread::sleep(Duration::from_millis(delay));
            child.kill().unwrap();
            child.wait().unwrap();
            held = check(&db, &texts).await;
            seen.push(held);
        }
        let out = import(&file, &db).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["skipped"], held, "{report}");
        assert_eq!(report["imported"], LINES - held, "{report}");
        assert_eq!(check(&db, &texts).await, LINES);
    }
    eprintln!("memories held after each kill (pairs: fresh, resumed): {seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_sqlite_import_resumes_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("scratch.db").display().to_string();
    campaign(
        |n| {
            dir.path()
                .join(format!("memory-{n}.db"))
                .display()
                .to_string()
        },
        &scratch,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_postgres_import_resumes_without_duplicates() {
    let Some(url) = service_url("AGCORE_TEST_POSTGRES_URL") else {
        return;
    };
    let name = |tag: &str| format!("kill_import_{tag}_{}", std::process::id());
    let schema = |tag: &str| format!("{url}?schema={}", name(tag));
    campaign(|n| schema(&format!("db{n}")), &schema("scratch")).await;
    let db = agcore::memory::postgres::PostgresDatabase::builder()
        .pool_size(1)
        .open(&url)
        .await
        .unwrap();
    let client = db.pool().get().await.unwrap();
    let pairs = kills().div_ceil(2);
    for tag in (0..pairs)
        .map(|n| format!("db{n}"))
        .chain(["scratch".to_owned()])
    {
        client
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", name(&tag)))
            .await
            .unwrap();
    }
}
