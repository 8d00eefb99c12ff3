//! `cargo xtask reliability [--full] [--soak-minutes M]`: the load, crash
//! and fault campaigns of `agcore-reliability` (release build) against the
//! local servers of `.services/env`, each report appended to
//! `target/reliability/reports.jsonl` and summed up at the end.
//!
//! Sizes: by default those of the campaign tests (a few minutes); `--full`
//! the sizes of `docs/reliability.md` — 64 writers × 10,000 saves over 8
//! processes on SQLite and PostgreSQL, 50 kills per campaign, a 30-minute
//! soak (or `--soak-minutes`). The disk-full campaign mounts a 3 MiB tmpfs
//! and needs root.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::step::{Context, read_env_file};

/// Parsed arguments.
#[derive(Debug, Clone, Copy)]
pub struct ReliabilityArgs {
    full: bool,
    soak_minutes: Option<f64>,
}

impl ReliabilityArgs {
    /// Parses `[--full] [--soak-minutes M]`.
    ///
    /// # Errors
    /// A message for anything else.
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut parsed = Self {
            full: false,
            soak_minutes: None,
        };
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--full" => parsed.full = true,
                "--soak-minutes" => {
                    let value = rest.next().and_then(|m| m.parse::<f64>().ok());
                    parsed.soak_minutes =
                        Some(value.ok_or("--soak-minutes takes a number of minutes")?);
                }
                other => return Err(format!("`reliability` does not take `{other}`")),
            }
        }
        Ok(parsed)
    }
}

/// Runs the campaigns.
///
/// # Errors
/// A message naming the first campaign that failed.
pub fn reliability(ctx: &Context, args: ReliabilityArgs) -> Result<(), String> {
    let env_file = ctx.services_env_file();
    let env = if env_file.exists() {
        read_env_file(&env_file)?
    } else {
        Vec::new()
    };
    let var = |key: &str| {
        env.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| {
                format!(
                    "{key} is not in {} (scripts/services.sh start)",
                    env_file.display()
                )
            })
    };
    let postgres = var("AGCORE_TEST_POSTGRES_URL")?;
    let mut build = ctx.cargo(&[
        "build",
        "--release",
        "-p",
        "agcore-reliability",
        "-p",
        "agcore-cli",
    ]);
    build.envs(env.iter().cloned());
    ctx.run("build", build)?;
    let bin = ctx.root.join("target/release/agcore-reliability");
    let out_dir = ctx.root.join("target/reliability");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let reports = out_dir.join("reports.jsonl");
    let scratch = tempdir(&out_dir)?;
    let (saves, kills) = if args.full {
        ("10000", "50")
    } else {
        ("200", "6")
    };
    let sqlite = |name: &str| scratch.join(name).display().to_string();
    let mut campaigns: Vec<(String, Vec<String>)> = Vec::new();
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    for (backend, url) in [
        ("sqlite", sqlite("writers.db")),
        ("postgres", postgres.clone()),
    ] {
        campaigns.push((
            format!("writers on {backend}"),
            words(&[
                "writers",
                "--url",
                &url,
                "--processes",
                "8",
                "--writers",
                "64",
                "--saves",
                saves,
            ]),
        ));
    }
    for (backend, url) in [
        ("sqlite", sqlite("batch.db")),
        ("postgres", postgres.clone()),
    ] {
        campaigns.push((
            format!("SIGKILL during batched inserts on {backend}"),
            words(&["kill-batch", "--url", &url, "--kills", kills]),
        ));
    }
    for (backend, url) in [
        ("sqlite", sqlite("extract.db")),
        ("postgres", postgres.clone()),
    ] {
        campaigns.push((
            format!("SIGKILL during fact extraction on {backend}"),
            words(&["kill-extraction", "--url", &url, "--kills", kills]),
        ));
    }
    campaigns.push((
        "SIGKILL during background embedding on sqlite".to_owned(),
        words(&[
            "kill-embedding",
            "--url",
            &sqlite("embed.db"),
            "--kills",
            kills,
            "--embed-url",
            &var("AGCORE_TEST_E5_BASE_URL")?,
            "--embed-model",
            &var("AGCORE_TEST_E5_MODEL")?,
        ]),
    ));
    let soak = match (args.soak_minutes, args.full) {
        (Some(m), _) => words(&["soak", "--dir", &sqlite(""), "--minutes", &m.to_string()]),
        (None, true) => words(&["soak", "--dir", &sqlite(""), "--minutes", "30"]),
        (None, false) => words(&["soak", "--dir", &sqlite(""), "--turns", "3000"]),
    };
    campaigns.push(("soak".to_owned(), soak));
    let mut failures = Vec::new();
    for (name, argv) in &campaigns {
        let mut command = Command::new(&bin);
        command.args(argv).envs(env.iter().cloned());
        if let Err(err) = run_campaign(ctx, name, command, &reports) {
            failures.push(err);
        }
    }
    if let Err(err) = disk_full(ctx, &bin, &scratch, &reports) {
        failures.push(err);
    }
    let mut import = ctx.cargo(&[
        "test",
        "--release",
        "-p",
        "agcore-cli",
        "--test",
        "integration",
        "kill_import::",
        "--",
        "--nocapture",
    ]);
    import
        .envs(env.iter().cloned())
        .env("AGCORE_KILLS", kills)
        .env("AGCORE_REQUIRE_SERVICES", "1");
    if let Err(err) = ctx.run("SIGKILL during agcore memory import", import) {
        failures.push(err);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("\n==> reports appended to {}", reports.display());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn tempdir(parent: &Path) -> Result<PathBuf, String> {
    let dir = parent.join(format!("run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Runs one campaign, prints its report and appends it to `reports`.
fn run_campaign(
    ctx: &Context,
    name: &str,
    mut command: Command,
    reports: &Path,
) -> Result<(), String> {
    ctx.prepare(&mut command);
    println!("\n==> [{name}]");
    let out = command
        .output()
        .map_err(|e| format!("{name}: cannot run: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!(
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let report = stdout.lines().last().unwrap_or_default().to_owned();
    println!("{report}");
    let mut text = std::fs::read_to_string(reports).unwrap_or_default();
    text.push_str(&report);
    text.push('\n');
    std::fs::write(reports, text).map_err(|e| format!("{}: {e}", reports.display()))
}

/// Mounts a 3 MiB tmpfs, runs the disk-full campaign in it, unmounts.
fn disk_full(ctx: &Context, bin: &Path, scratch: &Path, reports: &Path) -> Result<(), String> {
    let mount = scratch.join("small-disk");
    std::fs::create_dir_all(&mount).map_err(|e| format!("{}: {e}", mount.display()))?;
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=3m", "tmpfs"])
        .arg(&mount)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        return Err("disk full: cannot mount a tmpfs (needs root)".to_owned());
    }
    let mut command = Command::new(bin);
    command.arg("disk-full").arg("--dir").arg(&mount);
    let result = run_campaign(ctx, "disk full", command, reports);
    let _ = Command::new("umount").arg(&mount).status();
    result
}
