//! `cargo xtask bench [--quick] [FILTER]`: runs the criterion benches of the workspace and
//! prints a summary of the results this run wrote.

use std::time::{Duration, SystemTime};

use crate::report;
use crate::step::Context;

/// Parsed arguments of `cargo xtask bench`.
#[derive(Debug, Default)]
pub struct BenchArgs {
    /// Criterion's `--quick` mode with a 1 s warm-up and 2 s measurement per benchmark.
    pub quick: bool,
    /// Criterion's positional filter (a regular expression over benchmark ids).
    pub filter: Option<String>,
    /// Do not run anything: summarise the latest results already in `target/criterion`.
    pub report_only: bool,
}

impl BenchArgs {
    /// Parses `[--quick] [--report] [FILTER]` in any order.
    ///
    /// # Errors
    /// A message on an unknown flag or a second filter.
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut parsed = Self::default();
        for arg in args {
            match arg.as_str() {
                "--quick" => parsed.quick = true,
                "--report" => parsed.report_only = true,
                flag if flag.starts_with('-') => {
                    return Err(format!(
                        "bench: unknown flag `{flag}` (expected --quick or --report)"
                    ));
                }
                filter if parsed.filter.is_none() => parsed.filter = Some(filter.to_owned()),
                extra => return Err(format!("bench: only one filter allowed (extra `{extra}`)")),
            }
        }
        Ok(parsed)
    }
}

/// Runs `cargo bench` over every `[[bench]]` target of the workspace, then reads
/// `target/criterion/**/new/{estimates,benchmark}.json` written by this run and prints
/// the summary table. With `--report` nothing runs and every result on disk is summarised.
///
/// # Errors
/// A message when the benches fail or no results were written.
pub fn bench(args: &BenchArgs) -> Result<(), String> {
    let ctx = Context::new();
    let dir = ctx.target_dir().join("criterion");
    if args.report_only {
        let results = report::collect(&dir, SystemTime::UNIX_EPOCH)?;
        if results.is_empty() {
            return Err(format!("no criterion results under {}", dir.display()));
        }
        println!("{}", report::table(&results));
        return Ok(());
    }
    // Filesystem timestamps can be coarser than the clock: allow a little slack.
    let started = SystemTime::now()
        .checked_sub(Duration::from_secs(2))
        .unwrap_or(SystemTime::UNIX_EPOCH);

    // `--bench '*'` selects only bench targets: library targets would run under libtest,
    // which rejects criterion's flags.
    let mut command = ctx.cargo(&[
        "bench",
        "--workspace",
        "--all-features",
        "--bench",
        "*",
        "--",
    ]);
    if args.quick {
        command.args(["--quick", "--warm-up-time", "1", "--measurement-time", "2"]);
    }
    if let Some(filter) = &args.filter {
        command.arg(filter);
    }
    ctx.run("bench", command)?;

    let results = report::collect(&dir, started)?;
    if results.is_empty() {
        return Err(format!(
            "no criterion results written under {} by this run (filter matched nothing?)",
            dir.display()
        ));
    }
    println!("\n{}", report::table(&results));
    Ok(())
}
