//! `cargo xtask check`, `cargo xtask test` and `cargo xtask ci`.

use std::process::Command;

use crate::disk;
use crate::examples::examples;
use crate::fuzz::{FuzzArgs, fuzz};
use crate::layering::layering;
use crate::step::{Context, read_env_file};

/// fmt check, clippy, the crate layering, tests, docs and (when installed) cargo-deny.
///
/// Stops at the first failing step, unless `keep_going` is set: then every step runs and
/// the error lists all failed steps.
///
/// # Errors
/// A message naming the failing step(s).
pub fn check(ctx: &Context, keep_going: bool) -> Result<(), String> {
    type Step = fn(&Context) -> Result<(), String>;
    let steps: [Step; 6] = [fmt, clippy, layering, test, doc, deny];
    let mut failures = Vec::new();
    for step in steps {
        if let Err(message) = step(ctx) {
            if !keep_going {
                return Err(message);
            }
            println!("==> {message}");
            failures.push(message);
        }
    }
    if failures.is_empty() {
        println!("\n==> check passed");
        Ok(())
    } else {
        Err(format!(
            "{} step(s) failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

fn fmt(ctx: &Context) -> Result<(), String> {
    ctx.run("fmt", ctx.cargo(&["fmt", "--all", "--", "--check"]))
}

fn clippy(ctx: &Context) -> Result<(), String> {
    ctx.run(
        "clippy",
        ctx.cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ]),
    )
}

fn doc(ctx: &Context) -> Result<(), String> {
    let mut doc = ctx.cargo(&["doc", "--workspace", "--all-features", "--no-deps"]);
    doc.env("RUSTDOCFLAGS", "-D warnings");
    ctx.run("doc", doc)
}

/// The workspace tests with the variables from `.services/env` (when the file exists).
///
/// The file's values win over the same variables in the calling environment: the file
/// describes the servers `scripts/services.sh start` is running right now.
///
/// # Errors
/// A message when the env file is malformed or a test fails.
pub fn test(ctx: &Context) -> Result<(), String> {
    // --no-fail-fast: run every test binary and report all failures, not just the first.
    let mut command = ctx.cargo(&["test", "--workspace", "--all-features", "--no-fail-fast"]);
    let env_file = ctx.services_env_file();
    if env_file.exists() {
        let pairs = read_env_file(&env_file)?;
        let keys: Vec<&str> = pairs.iter().map(|(key, _)| key.as_str()).collect();
        println!(
            "\n==> [test] env from {}: {}",
            env_file.display(),
            keys.join(", ")
        );
        command.envs(pairs);
    } else {
        println!(
            "\n==> [test] no {} (run scripts/services.sh start for the interop tests)",
            env_file.display()
        );
    }
    ctx.run("test", command)
}

/// `cargo fetch` (every platform's crates, which `cargo deny` reads) then
/// `cargo deny --offline check licenses bans sources`, or a note when it is not installed.
///
/// # Errors
/// A message when cargo-deny reports a problem.
fn deny(ctx: &Context) -> Result<(), String> {
    let installed = ctx
        .cargo(&["deny", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !installed {
        println!(
            "\n==> [deny] skipped: cargo-deny not installed (cargo install cargo-deny --locked)"
        );
        return Ok(());
    }
    ctx.run("fetch", ctx.cargo(&["fetch", "--locked"]))?;
    ctx.run(
        "deny",
        ctx.cargo(&["deny", "--offline", "check", "licenses", "bans", "sources"]),
    )
}

/// Starts the services, runs [`check`] (whose tests replay every fuzz corpus and
/// regression file) and, when it passes, [`examples`] with
/// `AGCORE_REQUIRE_SERVICES=1`, then stops the services again, also on failure;
/// last, the short coverage-guided run of every fuzz target ([`FuzzArgs::ci`]),
/// which needs no server.
///
/// When the llama server was already running before (a developer's machine), it is left
/// running so other users of it are not disturbed.
///
/// # Errors
/// A message naming the failing step (start, a check step, an example, or stop).
pub fn ci() -> Result<(), String> {
    let ctx = Context::new();
    let script = ctx.root.join("scripts").join("services.sh");
    let was_running = Command::new(&script)
        .arg("status")
        .current_dir(&ctx.root)
        .output()
        .is_ok_and(|output| output.status.success());

    let services = |action: &str| {
        let mut command = Command::new(&script);
        command.arg(action);
        command
    };
    disk::report(&ctx.root, "before");
    disk::ensure_room(&ctx)?;
    ctx.run("services start", services("start"))?;
    // A CI build is built once and its binaries run once: incremental caches and debug
    // info would only cost disk (panics still name file and line; backtraces keep
    // function names). See `disk.rs` for the sizes.
    let ci_ctx = ctx
        .clone()
        .with_env("AGCORE_REQUIRE_SERVICES", "1")
        .with_env("CARGO_INCREMENTAL", "0")
        .with_env("CARGO_PROFILE_DEV_DEBUG", "false")
        .with_env("CARGO_PROFILE_DEV_STRIP", "debuginfo");
    let checked = check(&ci_ctx, false).and_then(|()| examples(&ci_ctx));
    disk::report(&ctx.root, "after");
    let stopped = if was_running {
        println!("\n==> [services stop] skipped: the services were running before `ci` started");
        Ok(())
    } else {
        ctx.run("services stop", services("stop"))
    };
    checked?;
    stopped?;
    fuzz(&ci_ctx, &FuzzArgs::ci())?;
    println!("\n==> ci passed");
    Ok(())
}
