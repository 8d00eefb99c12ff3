//! Building the examples and running one row of the expectation table.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{CLEARED, Expectation, LIMIT, Verdict};
use crate::step::{Context, read_env_file};
use crate::timed::{self, Outcome};

/// Lines of captured output shown when a run fails.
const TAIL_LINES: usize = 40;

/// The build arguments. `--workspace --all-features` resolves the dependencies' features as
/// `cargo test --workspace --all-features` does, so after the test step of `ci` every
/// artifact is reused (`-p agcore-examples` alone resolves about a third of them
/// differently and would compile those again).
const BUILD_ARGS: &[&str] = &["build", "--workspace", "--all-features", "--examples"];

/// Builds the examples (into `CARGO_TARGET_DIR` when set) and returns the executable of
/// each example of the package whose manifest is `manifest`, as cargo reports it.
///
/// # Errors
/// A message when cargo fails or its report cannot be read.
pub fn build(ctx: &Context, manifest: &Path) -> Result<HashMap<String, PathBuf>, String> {
    let mut command = ctx.cargo(BUILD_ARGS);
    command.arg("--message-format=json-render-diagnostics");
    ctx.prepare(&mut command);
    command.stderr(Stdio::inherit());
    println!("\n==> [examples build] cargo {}", BUILD_ARGS.join(" "));
    let output = command
        .output()
        .map_err(|err| format!("step `examples build`: cannot run cargo: {err}"))?;
    if !output.status.success() {
        return Err(format!("step `examples build` failed ({})", output.status));
    }
    executables(&String::from_utf8_lossy(&output.stdout), manifest)
}

/// Example name → executable path from cargo's JSON messages (one object per line), for
/// the package whose manifest is `manifest`.
fn executables(messages: &str, manifest: &Path) -> Result<HashMap<String, PathBuf>, String> {
    let mut found = HashMap::new();
    for line in messages.lines().filter(|line| line.starts_with('{')) {
        let message: serde_json::Value = serde_json::from_str(line)
            .map_err(|err| format!("cargo printed a message that is not JSON ({err}): {line}"))?;
        if message.get("reason").and_then(serde_json::Value::as_str) != Some("compiler-artifact") {
            continue;
        }
        let in_package = message
            .get("manifest_path")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|path| Path::new(path) == manifest);
        let is_example = message
            .pointer("/target/kind")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|kinds| kinds.iter().any(|kind| kind == "example"));
        let name = message
            .pointer("/target/name")
            .and_then(serde_json::Value::as_str);
        let path = message
            .get("executable")
            .and_then(serde_json::Value::as_str);
        if let (true, true, Some(name), Some(path)) = (in_package, is_example, name, path) {
            found.insert(name.to_owned(), PathBuf::from(path));
        }
    }
    Ok(found)
}

/// The server variables: `.services/env` (written by `scripts/services.sh start`) first,
/// then the calling environment. Empty values count as unset.
pub struct ServiceEnv {
    file: Vec<(String, String)>,
}

impl ServiceEnv {
    /// Reads the env file when it exists.
    ///
    /// # Errors
    /// A message when the file exists but is malformed.
    pub fn load(ctx: &Context) -> Result<Self, String> {
        let path = ctx.services_env_file();
        let file = if path.exists() {
            println!("==> [examples] server variables from {}", path.display());
            read_env_file(&path)?
        } else {
            println!(
                "==> [examples] no {} (scripts/services.sh start writes it)",
                path.display()
            );
            Vec::new()
        };
        Ok(Self { file })
    }

    fn get(&self, key: &str) -> Option<String> {
        self.file
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(key).ok())
            .filter(|v| !v.trim().is_empty())
    }
}

/// Whether missing servers fail a run instead of skipping it: `CI=true` or
/// `AGCORE_REQUIRE_SERVICES=1`, in the calling environment or the context's.
pub fn services_required(ctx: &Context) -> bool {
    let lookup = |key: &str| {
        ctx.env
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(key).ok())
    };
    lookup("CI").as_deref() == Some("true")
        || lookup("AGCORE_REQUIRE_SERVICES").as_deref() == Some("1")
}

/// Runs one row: the binary in the workspace root with the row's server variables, and
/// returns the verdict and the run time in seconds.
pub fn run_one(
    ctx: &Context,
    binary: &std::path::Path,
    expectation: &Expectation,
    services: &ServiceEnv,
    required: bool,
) -> (Verdict, f64) {
    let vars = expectation.needs.vars();
    let missing: Vec<&str> = vars
        .iter()
        .filter(|(source, _)| services.get(source).is_none())
        .map(|(source, _)| *source)
        .collect();
    if !missing.is_empty() {
        let why = format!("set {} (scripts/services.sh start)", missing.join(", "));
        return if required {
            (
                Verdict::Failed(format!("servers required but unset: {why}")),
                0.0,
            )
        } else {
            (Verdict::Skipped(why), 0.0)
        };
    }
    let mut command = Command::new(binary);
    for key in CLEARED {
        command.env_remove(key);
    }
    ctx.prepare(&mut command);
    for (source, target) in vars {
        if let Some(value) = services.get(source) {
            command.env(target, value);
        }
    }
    match timed::run(command, LIMIT) {
        Err(err) => (Verdict::Failed(err), 0.0),
        Ok(outcome) => {
            let verdict = judge(&outcome, expectation.line);
            if let Verdict::Failed(_) = verdict {
                print_tail("stdout", &outcome.stdout);
                print_tail("stderr", &outcome.stderr);
            }
            (verdict, outcome.seconds)
        }
    }
}

/// Passed (with the matching line, trimmed) when the process exited with 0 within the
/// limit and a stdout line holds `line`.
pub(super) fn judge(outcome: &Outcome, line: &str) -> Verdict {
    match outcome.status {
        None => Verdict::Failed(format!("still running after {} s", LIMIT.as_secs())),
        Some(status) if !status.success() => Verdict::Failed(format!("exited with {status}")),
        Some(_) => match outcome.stdout.lines().find(|l| l.contains(line)) {
            Some(found) => Verdict::Passed(found.trim().to_owned()),
            None => Verdict::Failed(format!("no stdout line contains `{line}`")),
        },
    }
}

fn print_tail(label: &str, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let skip = lines.len().saturating_sub(TAIL_LINES);
    println!("    --- {label} (last {} lines)", lines.len() - skip);
    for line in lines.iter().skip(skip) {
        println!("    {line}");
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    use super::*;

    fn outcome(code: Option<i32>, stdout: &str) -> Outcome {
        Outcome {
            // A wait status holds the exit code in its second byte.
            status: code.map(|code| ExitStatus::from_raw(code << 8)),
            stdout: stdout.to_owned(),
            stderr: String::new(),
            seconds: 0.5,
        }
    }

    #[test]
    fn a_run_passes_only_with_exit_zero_and_the_line() {
        assert_eq!(
            judge(&outcome(Some(0), "banner\n  usage: 3 prompt\n"), "usage: "),
            Verdict::Passed("usage: 3 prompt".into())
        );
        let missing = judge(&outcome(Some(0), "banner\n"), "usage: ");
        assert_eq!(
            missing,
            Verdict::Failed("no stdout line contains `usage: `".into())
        );
        let exit = judge(&outcome(Some(1), "usage: 3 prompt\n"), "usage: ");
        assert!(
            matches!(&exit, Verdict::Failed(why) if why.contains("exit status: 1")),
            "{exit:?}"
        );
        let late = judge(&outcome(None, "usage: 3 prompt\n"), "usage: ");
        assert!(
            matches!(&late, Verdict::Failed(why) if why.contains("still running")),
            "{late:?}"
        );
    }

    #[test]
    fn executables_come_from_example_artifacts_only() {
        let messages = concat!(
            "{\"reason\":\"compiler-artifact\",\"manifest_path\":\"/w/examples/Cargo.toml\",\"target\":{\"name\":\"agcore_examples\",\"kind\":[\"lib\"]},\"executable\":null}\n",
            "{\"reason\":\"compiler-artifact\",\"manifest_path\":\"/w/examples/Cargo.toml\",\"target\":{\"name\":\"simple_visit\",\"kind\":[\"example\"]},\"executable\":\"/t/debug/examples/simple_visit\"}\n",
            "{\"reason\":\"compiler-artifact\",\"manifest_path\":\"/w/crates/llm/Cargo.toml\",\"target\":{\"name\":\"throughput\",\"kind\":[\"example\"]},\"executable\":\"/t/debug/examples/throughput\"}\n",
            "{\"reason\":\"build-finished\",\"success\":true}\n",
        );
        let manifest = Path::new("/w/examples/Cargo.toml");
        let found = executables(messages, manifest).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            found["simple_visit"],
            PathBuf::from("/t/debug/examples/simple_visit")
        );
        assert!(executables("{not json\n", manifest).is_err());
    }
}
