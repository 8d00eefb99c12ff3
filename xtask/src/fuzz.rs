//! `cargo xtask fuzz TARGET|all [--time S]`: coverage-guided fuzzing of the
//! `agcore-fuzz` targets with AFL++ through cargo-afl (stable toolchain).
//!
//! Installs cargo-afl when missing (`cargo install cargo-afl --locked`) and
//! builds AFL++ once (`cargo afl config --build`), builds the instrumented
//! binary into `target/afl` (its own directory, so normal release builds are
//! not invalidated), then runs `cargo afl fuzz -V S` on each target from
//! `fuzz/corpus/<target>/` into `target/fuzz/<target>/`. Prints executions,
//! crashes and hangs per target, appends one JSON line per target to
//! `target/fuzz/report.jsonl`, and fails naming the crash files when any
//! target crashed.
//!
//! `--quick` builds without optimisation (`AFL_OPT_LEVEL=0`) into
//! `target/afl-quick` and writes into `target/fuzz-quick`: a much cheaper
//! cold build for fewer executions per second, what CI's short run uses
//! ([`FuzzArgs::ci`]).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::step::Context;

/// Every target of `agcore_fuzz::Target::ALL`, in the same order.
const TARGETS: [&str; 10] = [
    "sse",
    "plan",
    "template",
    "analyzer",
    "fts_sqlite",
    "fts_mysql",
    "jsonl",
    "config",
    "mcp",
    "memory_context",
];

/// Seconds per target of CI's short run.
pub const CI_SECONDS: u64 = 10;

/// Parsed arguments of `fuzz`.
#[derive(Debug, Clone)]
pub struct FuzzArgs {
    targets: Vec<&'static str>,
    seconds: u64,
    quick: bool,
}

impl FuzzArgs {
    /// CI's short run: every target for [`CI_SECONDS`] from an unoptimised
    /// (`--quick`) build.
    pub fn ci() -> Self {
        Self {
            targets: TARGETS.to_vec(),
            seconds: CI_SECONDS,
            quick: true,
        }
    }

    /// Parses `TARGET|all [--time S] [--quick]` (default 60 s per target).
    ///
    /// # Errors
    /// A message for an unknown target or a bad time.
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut targets = None;
        let mut seconds = 60;
        let mut quick = false;
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--quick" => quick = true,
                "--time" => {
                    let value = rest.next().and_then(|s| s.parse::<u64>().ok());
                    seconds = value
                        .filter(|s| *s > 0)
                        .ok_or("--time takes seconds (> 0)")?;
                }
                "all" => targets = Some(TARGETS.to_vec()),
                name => {
                    let target = TARGETS.iter().find(|t| **t == name).ok_or_else(|| {
                        format!("unknown fuzz target `{name}` (all, {})", TARGETS.join(", "))
                    })?;
                    targets = Some(vec![*target]);
                }
            }
        }
        let targets = targets.ok_or("`fuzz` takes a target name or `all`")?;
        Ok(Self {
            targets,
            seconds,
            quick,
        })
    }
}

/// The numbers of one run, from AFL's `fuzzer_stats`.
#[derive(Debug, Default)]
struct Stats {
    execs: u64,
    crashes: u64,
    hangs: u64,
    corpus: u64,
    seconds: u64,
}

/// The folder under `target/` of the quick (CI) fuzz build.
pub const QUICK_BUILD_DIR: &str = "afl-quick";

/// Installs and builds what is missing, fuzzes each target, reports.
///
/// # Errors
/// A message when a step fails or any target crashed (naming the files).
pub fn fuzz(ctx: &Context, args: &FuzzArgs) -> Result<(), String> {
    ensure_cargo_afl(ctx)?;
    let (build_dir, out_dir) = if args.quick {
        (QUICK_BUILD_DIR, "fuzz-quick")
    } else {
        ("afl", "fuzz")
    };
    let afl_target = ctx.root.join("target").join(build_dir);
    let mut build = ctx.cargo(&["afl", "build", "--release", "-p", "agcore-fuzz"]);
    build.env("CARGO_TARGET_DIR", &afl_target);
    if args.quick {
        // cargo-afl's own variable: `-C opt-level` of the instrumented build.
        build.env("AFL_OPT_LEVEL", "0");
    }
    ctx.run("fuzz build", build)?;
    let binary = afl_target.join("release").join("agcore-fuzz");
    let out_root = ctx.root.join("target").join(out_dir);
    std::fs::create_dir_all(&out_root).map_err(|e| format!("{}: {e}", out_root.display()))?;
    let mut rows = Vec::new();
    let mut crash_files = Vec::new();
    for target in &args.targets {
        let stats = fuzz_one(ctx, &binary, &out_root, target, args.seconds)?;
        crash_files.extend(files_in(
            &out_root.join(target).join("default").join("crashes"),
        ));
        append_report(&out_root.join("report.jsonl"), target, args.seconds, &stats)?;
        rows.push((*target, stats));
    }
    println!("\n==> [fuzz] {} s per target", args.seconds);
    println!(
        "{:<16} {:>8} {:>14} {:>10} {:>8} {:>6}",
        "target", "seconds", "executions", "execs/s", "crashes", "hangs"
    );
    for (target, s) in &rows {
        let rate = s.execs / s.seconds.max(1);
        println!(
            "{target:<16} {:>8} {:>14} {rate:>10} {:>8} {:>6}",
            s.seconds, s.execs, s.crashes, s.hangs
        );
    }
    if crash_files.is_empty() {
        Ok(())
    } else {
        let names: Vec<String> = crash_files
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        Err(format!(
            "fuzzing found {} crash(es); add each to fuzz/regressions/<target>/ once fixed:\n  {}",
            names.len(),
            names.join("\n  ")
        ))
    }
}

/// `cargo install cargo-afl --locked` when `cargo afl` is missing, then the
/// one-time AFL++ build (`cargo afl config --build`; already built is fine).
fn ensure_cargo_afl(ctx: &Context) -> Result<(), String> {
    let installed = ctx
        .cargo(&["afl", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        ctx.run(
            "install cargo-afl",
            ctx.cargo(&["install", "cargo-afl", "--locked"]),
        )?;
    }
    let output = ctx
        .cargo(&["afl", "config", "--build"])
        .output()
        .map_err(|e| format!("cannot run cargo afl config: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() || stderr.contains("already built") {
        Ok(())
    } else {
        Err(format!("cargo afl config --build failed:\n{stderr}"))
    }
}

/// One `cargo afl fuzz` run of `seconds` on a fresh output directory.
fn fuzz_one(
    ctx: &Context,
    binary: &Path,
    out_root: &Path,
    target: &str,
    seconds: u64,
) -> Result<Stats, String> {
    let out = out_root.join(target);
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let corpus = ctx.root.join("fuzz").join("corpus").join(target);
    let log_path = out_root.join(format!("{target}.log"));
    let log =
        std::fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let mut command = ctx.cargo(&["afl", "fuzz", "-V", &seconds.to_string()]);
    command
        .arg("-i")
        .arg(&corpus)
        .arg("-o")
        .arg(&out)
        .arg("--")
        .arg(binary)
        .arg(target)
        .env("AFL_NO_UI", "1")
        .env("AFL_SKIP_CPUFREQ", "1")
        .env("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1")
        // Shared machines: do not insist on a free core of one's own.
        .env("AFL_NO_AFFINITY", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .stdout(log);
    ctx.run(
        &format!("fuzz {target} ({seconds} s, log {})", log_path.display()),
        command,
    )
    .map_err(|e| format!("{e}; see {}", log_path.display()))?;
    read_stats(&out.join("default").join("fuzzer_stats"))
}

/// `execs_done`, `saved_crashes`, `saved_hangs`, `corpus_count`, `run_time`.
fn read_stats(path: &Path) -> Result<Stats, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut stats = Stats::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().parse::<u64>().unwrap_or(0);
        match key.trim() {
            "execs_done" => stats.execs = value,
            "saved_crashes" => stats.crashes = value,
            "saved_hangs" => stats.hangs = value,
            "corpus_count" => stats.corpus = value,
            "run_time" => stats.seconds = value,
            _ => {}
        }
    }
    Ok(stats)
}

fn append_report(path: &Path, target: &str, seconds: u64, s: &Stats) -> Result<(), String> {
    use std::io::Write as _;
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let line = serde_json::json!({
        "target": target, "requested_seconds": seconds, "run_seconds": s.seconds,
        "executions": s.execs, "crashes": s.crashes, "hangs": s.hangs,
        "corpus": s.corpus, "unix_time": at,
    });
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    writeln!(file, "{line}").map_err(|e| format!("{}: {e}", path.display()))
}

/// The files of `dir` but AFL's `README.txt`, sorted; none when it is missing.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.txt"))
        .collect();
    files.sort();
    files
}
