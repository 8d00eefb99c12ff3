//! Disk space around `cargo xtask ci`: what is free before and after, and a clear
//! stop before building when the build cannot fit.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::step::Context;

/// Bytes a cold `cargo xtask ci` writes into the target folder and the fuzz build
/// folder `target/afl-quick`. Measured (`du -sb`) after a passing clean-clone run on
/// 2026-12-03: 4.3 GiB + 1.1 GiB (built without debug info; 6.0 + 1.1 GiB with it).
/// Below this the build cannot fit and `ci` stops before building.
const CI_BUILD_BYTES: u64 = 5 * GIB + 2 * GIB / 5;

/// Bytes `scripts/services.sh start` adds on a machine where it never ran: its state
/// folder held 1.4 GiB after a cold start on 2026-12-03 (databases, models, virtual
/// environments), and it installs Debian packages (Chromium, MariaDB, PostgreSQL's
/// server headers, Redis) besides. Counted only when the state folder is missing.
const SERVICES_BYTES: u64 = 2 * GIB;

const GIB: u64 = 1 << 30;

/// Prints the free space of the file system holding `root` (`df -h`), so a run that fails
/// for lack of disk says so; a missing `df` is not an error.
pub fn report(root: &Path, when: &str) {
    if let Ok(output) = Command::new("df").arg("-h").arg(root).output() {
        println!(
            "\n==> [disk {when}]\n{}",
            String::from_utf8_lossy(&output.stdout).trim_end()
        );
    }
}

/// Fails, before anything is built, when the free space of the target folder's file
/// system, plus what the target and fuzz folders already hold (reused, not rewritten),
/// is below what a cold run was measured to write (the services' share included when
/// their state folder is missing); warns, and goes on, when it is within a quarter of
/// that. Without `df` the check is skipped with a note.
///
/// # Errors
/// A message with the figures and what to free.
pub fn ensure_room(ctx: &Context) -> Result<(), String> {
    let target = ctx.target_dir();
    let Some(free) = free_bytes(&target) else {
        println!("\n==> [disk] free space unknown (no usable `df`); not checked");
        return Ok(());
    };
    let reused = folder_bytes(&target)
        + folder_bytes(&ctx.root.join("target").join(crate::fuzz::QUICK_BUILD_DIR));
    let services = if ctx.services_dir().exists() {
        0
    } else {
        SERVICES_BYTES
    };
    let needed = CI_BUILD_BYTES + services;
    let room = free.saturating_add(reused);
    let figures = format!(
        "{} free beside {} ({} already built there); a cold `ci` run writes {} \
         (builds {}, services {})",
        gib(free),
        target.display(),
        gib(reused),
        gib(needed),
        gib(CI_BUILD_BYTES),
        gib(services),
    );
    if room < needed {
        return Err(format!(
            "disk: {figures}: free some space (an old target folder, `cargo clean`) \
             and run again"
        ));
    }
    if room < needed + needed / 4 {
        println!("\n==> [disk] warning: {figures}; going on with little to spare");
    }
    Ok(())
}

/// `bytes` as GiB with one decimal, e.g. `5.1 GiB`.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / GIB as f64)
}

/// Free bytes of the file system holding `path` (or its nearest existing ancestor).
fn free_bytes(path: &Path) -> Option<u64> {
    let existing: PathBuf = path.ancestors().find(|p| p.exists())?.to_path_buf();
    let output = Command::new("df")
        .args(["-B1", "--output=avail"])
        .arg(&existing)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

/// Bytes under `dir` as `du -sb` counts them; 0 when it does not exist or `du` fails
/// (the check then counts only the free space).
fn folder_bytes(dir: &Path) -> u64 {
    if !dir.exists() {
        return 0;
    }
    Command::new("du")
        .arg("-sb")
        .arg(dir)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| {
            String::from_utf8_lossy(&output.stdout)
                .split_whitespace()
                .next()
                .and_then(|bytes| bytes.parse().ok())
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_bytes_sums_nested_files_and_missing_is_zero() {
        let dir = std::env::temp_dir().join(format!("xtask-disk-{}", std::process::id()));
        let nested = dir.join("a").join("b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(dir.join("one"), [0u8; 10]).unwrap();
        std::fs::write(nested.join("two"), [0u8; 32]).unwrap();
        // du also counts the folders themselves.
        assert!(folder_bytes(&dir) >= 42);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(folder_bytes(&dir), 0);
    }

    #[test]
    fn gib_has_one_decimal() {
        assert_eq!(gib(5 * GIB + GIB / 10), "5.1 GiB");
        assert_eq!(gib(7 * GIB + GIB / 10), "7.1 GiB");
    }

    #[test]
    fn free_bytes_of_an_existing_ancestor() {
        let missing = std::env::temp_dir()
            .join("xtask-disk-missing")
            .join("deeper");
        assert!(free_bytes(&missing).is_some_and(|bytes| bytes > 0));
    }
}
