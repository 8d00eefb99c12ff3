//! Project automation for the agcore workspace, run as `cargo xtask <command>`
//! (the alias lives in `.cargo/config.toml`).
//!
//! Commands:
//! - `check`: rustfmt check, clippy with `-D warnings` on all targets and features,
//!   the crate layering (`layering`), the workspace tests, `cargo doc` with `-D warnings`, and
//!   `cargo deny --offline check licenses bans sources` when cargo-deny is installed;
//!   stops at the first failing step unless `--keep-going` is given.
//! - `test`: only the workspace tests.
//! - `layering`: only the layering step: what each lower crate's build may not pull in
//!   (`cargo tree`), and `agcore-llm` built without its `chat` feature.
//! - `examples`: `cargo build --workspace --all-features --examples`, then runs every
//!   example of `examples/` with a 120 s limit and checks that it exits with 0 and that a
//!   line of its stdout holds the expected text of the table in `examples.rs` (which must
//!   cover every `[[example]]` of `examples/Cargo.toml`). Offline examples run without `OPENAI_*` variables; the others
//!   get the llama.cpp server or the MCP server from `.services/env` and are skipped when
//!   those variables are missing, or fail when `CI=true` or `AGCORE_REQUIRE_SERVICES=1`.
//! - `ci`: `scripts/services.sh start`, then `check` (its tests replay the fuzz corpora)
//!   and, when it passes, `examples`, both with `AGCORE_REQUIRE_SERVICES=1`, then `scripts/services.sh stop` (also on failure),
//!   then the short AFL++ run of every fuzz target (`fuzz all --time 10 --quick`).
//! - `reliability [--full] [--soak-minutes M]` (alias `stress`): the load, crash and fault campaigns of
//!   `agcore-reliability` against the local servers (see `reliability.rs`).
//! - `fuzz TARGET|all [--time S] [--quick]`: AFL++ runs of the `agcore-fuzz` targets (see `fuzz.rs`).
//! - `bench [--quick] [FILTER]`: the criterion benches, then a summary table;
//!   `bench --report` only prints the summary of the results already on disk.
//!
//! Test steps load `KEY=VALUE` lines from `.services/env` when that file exists (written by
//! `scripts/services.sh start`), so tests find the local servers without manual exports.

#![allow(clippy::print_stdout)]

mod bench;
mod check;
mod disk;
mod examples;
mod fuzz;
mod layering;
mod reliability;
mod report;
mod step;
mod timed;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  check [--keep-going]  fmt --check, clippy -D warnings, layering, tests, doc -D warnings,
                        cargo-deny (stops at the first failing step unless --keep-going)
  test                  workspace tests (env from .services/env when present)
  layering              what lower crates may not pull in (cargo tree), agcore-llm without chat
  examples              build every example, run each (120 s limit), check its exit code
                        and expected line; servers from .services/env, else skipped
                        (failed with CI=true or AGCORE_REQUIRE_SERVICES=1)
  ci                    services start, check and examples with
                        AGCORE_REQUIRE_SERVICES=1, services stop, then the fuzz
                        short run (fuzz all --time 10 --quick)
  reliability [--full] [--soak-minutes M]
                        load, SIGKILL, disk-full and soak campaigns against the local
                        servers (--full: the sizes of docs/reliability.md); `stress`
                        is the same command
  fuzz TARGET|all [--time S] [--quick]
                        AFL++ (cargo-afl) on the agcore-fuzz targets, S seconds each
                        (default 60); table of executions and crashes, fails on a crash;
                        --quick: unoptimised instrumented build, cheap when cold
  bench [--quick] [F]   criterion benches (optionally filtered by F), then a summary table
  bench --report        summary table of the criterion results already on disk
  help                  this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = match args.split_first() {
        Some((command, rest)) => (command.as_str(), rest),
        None => ("help", &[][..]),
    };
    let result = match command {
        "check" => match rest {
            [] => check::check(&step::Context::new(), false),
            [flag] if flag == "--keep-going" => check::check(&step::Context::new(), true),
            _ => Err(format!(
                "`check` takes only --keep-going (got {rest:?})\n\n{USAGE}"
            )),
        },
        "test" => no_args(command, rest).and_then(|()| check::test(&step::Context::new())),
        "layering" => {
            no_args(command, rest).and_then(|()| layering::layering(&step::Context::new()))
        }
        "examples" => {
            no_args(command, rest).and_then(|()| examples::examples(&step::Context::new()))
        }
        "ci" => no_args(command, rest).and_then(|()| check::ci()),
        "reliability" | "stress" => reliability::ReliabilityArgs::parse(rest)
            .and_then(|args| reliability::reliability(&step::Context::new(), args)),
        "fuzz" => {
            fuzz::FuzzArgs::parse(rest).and_then(|args| fuzz::fuzz(&step::Context::new(), &args))
        }
        "bench" => bench::BenchArgs::parse(rest).and_then(|args| bench::bench(&args)),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: FAILED: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Rejects extra arguments for commands that take none.
fn no_args(command: &str, rest: &[String]) -> Result<(), String> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "`{command}` takes no arguments (got {rest:?})\n\n{USAGE}"
        ))
    }
}
