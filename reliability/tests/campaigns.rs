//! The campaigns of `agcore-reliability` at a size CI can afford (the full
//! sizes, 64 writers × 10,000 saves and 50 kills, are `cargo xtask
//! reliability --full`; figures in `docs/reliability.md`). Each runs the
//! binary and reads its JSON report; the binary itself fails on a broken
//! invariant, and the report's counts are checked here too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;
use std::process::Command;

use agcore_memory_testkit::{service_url, services_required};
use serde_json::Value;

fn campaign(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_agcore-reliability"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

fn writers(url: &str) {
    let report = campaign(&[
        "writers",
        "--url",
        url,
        "--processes",
        "4",
        "--writers",
        "16",
        "--saves",
        "150",
    ]);
    // 16 writers × 148 private texts, and 2 shared texts merged into one entry each.
    assert_eq!(report["entries"], 16 * 148 + 2);
    assert_eq!(report["saves"], 16 * 150);
    assert_eq!(report["integrity"], "ok");
}

#[test]
fn concurrent_writers_over_processes_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    writers(&dir.path().join("w.db").display().to_string());
}

#[test]
fn concurrent_writers_over_processes_on_postgres() {
    let Some(url) = service_url("AGCORE_TEST_POSTGRES_URL") else {
        return;
    };
    writers(&url);
}

fn kill_batches(url: &str) {
    let report = campaign(&[
        "kill-batch",
        "--url",
        url,
        "--kills",
        "6",
        "--max-delay-ms",
        "600",
    ]);
    assert_eq!(report["kills"], 6);
    assert_eq!(report["torn_batches"], 0);
    assert!(
        report["batches_acknowledged"].as_u64().unwrap() > 0,
        "{report}"
    );
}

#[test]
fn killed_batch_writers_leave_whole_batches_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    kill_batches(&dir.path().join("b.db").display().to_string());
}

#[test]
fn killed_batch_writers_leave_whole_batches_on_postgres() {
    let Some(url) = service_url("AGCORE_TEST_POSTGRES_URL") else {
        return;
    };
    kill_batches(&url);
}

fn kill_extraction(url: &str) {
    let report = campaign(&[
        "kill-extraction",
        "--url",
        url,
        "--kills",
        "5",
        "--max-delay-ms",
        "800",
    ]);
    assert_eq!(report["turns_without_fact"], 0);
    assert_eq!(report["doubled_facts"], 0);
    assert!(
        report["turns_acknowledged"].as_u64().unwrap() > 0,
        "{report}"
    );
}

#[test]
fn killed_extraction_resumes_without_losing_or_doubling_facts_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    kill_extraction(&dir.path().join("x.db").display().to_string());
}

#[test]
fn killed_extraction_resumes_without_losing_or_doubling_facts_on_postgres() {
    if let Some(url) = service_url("AGCORE_TEST_POSTGRES_URL") {
        kill_extraction(&url);
    }
}

#[test]
fn killed_background_embedding_resumes_without_duplicates() {
    let (Some(base), Some(model)) = (
        service_url("AGCORE_TEST_E5_BASE_URL"),
        service_url("AGCORE_TEST_E5_MODEL"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db").display().to_string();
    let report = campaign(&[
        "kill-embedding",
        "--url",
        &db,
        "--kills",
        "3",
        "--saves",
        "20",
        "--max-delay-ms",
        "1200",
        "--embed-url",
        &base,
        "--embed-model",
        &model,
    ]);
    assert_eq!(report["memories_without_vector"], 0);
    assert_eq!(report["stale_or_orphan_vectors"], 0);
}

/// Mounts a tmpfs of `size` on `dir` (root only); `false` when it cannot.
fn mount_tmpfs(dir: &Path, size: &str) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_full_disk_is_a_clear_error_and_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let mount = dir.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    if !mount_tmpfs(&mount, "3m") {
        assert!(
            !services_required(),
            "mounting a tmpfs failed: the disk-full campaign needs root (CI runs as root)"
        );
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_agcore-reliability"))
        .args(["disk-full", "--dir"])
        .arg(&mount)
        .output()
        .unwrap();
    let unmounted = Command::new("umount").arg(&mount).status();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(unmounted.is_ok_and(|s| s.success()), "umount failed");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["acknowledged_store_saves"].as_u64().unwrap() > 0);
    assert!(report["error"].as_str().unwrap().contains("full"));
}

#[test]
fn a_short_soak_keeps_memory_files_and_tasks_flat() {
    let dir = tempfile::tempdir().unwrap();
    let report = campaign(&[
        "soak",
        "--dir",
        &dir.path().display().to_string(),
        "--turns",
        "1500",
        "--max-rss-growth-mib",
        "24",
    ]);
    assert_eq!(report["turns"], 1500);
    assert!(report["fact_extractions"].as_u64().unwrap() > 0);
}
