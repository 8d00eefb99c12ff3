//! Running one named step (a child process) with the workspace root as working directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Where the steps run and which extra environment they get.
#[derive(Debug, Clone)]
pub struct Context {
    /// The workspace root (parent of the `xtask` directory).
    pub root: PathBuf,
    /// Extra `(KEY, VALUE)` pairs set on every step's process.
    pub env: Vec<(String, String)>,
}

impl Context {
    /// `$CARGO_TARGET_DIR` (relative to the workspace root when relative) or
    /// `<workspace>/target`.
    pub fn target_dir(&self) -> PathBuf {
        std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .map_or_else(|| self.root.join("target"), |dir| self.root.join(dir))
    }

    /// A context rooted at the workspace with no extra environment.
    pub fn new() -> Self {
        let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest_dir
            .parent()
            .map_or_else(|| manifest_dir.to_path_buf(), Path::to_path_buf);
        Self {
            root,
            env: Vec::new(),
        }
    }

    /// Returns a copy with `key=value` added to the environment of every step.
    pub fn with_env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// The state directory of `scripts/services.sh`: `.services`, or
    /// `$AGCORE_SERVICES_DIR` when that variable names another one.
    pub fn services_dir(&self) -> PathBuf {
        std::env::var_os("AGCORE_SERVICES_DIR")
            .filter(|dir| !dir.is_empty())
            .map_or_else(|| self.root.join(".services"), |dir| self.root.join(dir))
    }

    /// The `env` file written by `scripts/services.sh start` in [`Self::services_dir`].
    pub fn services_env_file(&self) -> PathBuf {
        self.services_dir().join("env")
    }

    /// A `cargo` command (honours `$CARGO`, as cargo sets it for `cargo xtask`).
    pub fn cargo(&self, args: &[&str]) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command.args(args);
        command
    }

    /// Sets the workspace root as working directory and adds the extra environment.
    pub fn prepare(&self, command: &mut Command) {
        command.current_dir(&self.root);
        for (key, value) in &self.env {
            command.env(key, value);
        }
    }

    /// Runs `command` in the workspace root as the step `name`, printing what runs and how
    /// long it took.
    ///
    /// # Errors
    /// A message naming the step when the process cannot start or exits unsuccessfully.
    pub fn run(&self, name: &str, mut command: Command) -> Result<(), String> {
        self.prepare(&mut command);
        println!("\n==> [{name}] {}", describe(&command));
        let started = Instant::now();
        let status = command
            .status()
            .map_err(|err| format!("step `{name}`: cannot run {}: {err}", describe(&command)))?;
        let seconds = started.elapsed().as_secs_f64();
        if status.success() {
            println!("==> [{name}] ok ({seconds:.1} s)");
            Ok(())
        } else {
            Err(format!(
                "step `{name}` failed ({status}) after {seconds:.1} s: {}",
                describe(&command)
            ))
        }
    }
}

/// Reads `KEY=VALUE` lines (blank lines and `#` comments skipped) from `path`.
///
/// # Errors
/// A message when the file exists but cannot be read or holds a line without `=`.
pub fn read_env_file(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let mut pairs = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once('=').ok_or_else(|| {
            format!(
                "{}:{}: expected KEY=VALUE, got `{line}`",
                path.display(),
                number + 1
            )
        })?;
        pairs.push((key.trim().to_owned(), value.to_owned()));
    }
    Ok(pairs)
}

/// The command line as text, with the extra environment it sets in front.
fn describe(command: &Command) -> String {
    let mut parts: Vec<String> = command
        .get_envs()
        .filter_map(|(key, value)| {
            let key = key.to_string_lossy();
            // Only show the variables that change how the step runs, not every test URL.
            (key.starts_with("RUSTDOCFLAGS") || key == "AGCORE_REQUIRE_SERVICES").then(|| {
                format!(
                    "{key}={}",
                    value.map(|v| v.to_string_lossy()).unwrap_or_default()
                )
            })
        })
        .collect();
    let program = command.get_program().to_string_lossy();
    let program = Path::new(program.as_ref()).file_name().map_or_else(
        || program.to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    parts.push(program);
    parts.extend(
        command
            .get_args()
            .map(|arg| arg.to_string_lossy().into_owned()),
    );
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_file_lines_parse_and_bad_lines_are_reported() {
        let dir = std::env::temp_dir().join(format!("xtask-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("env");
        std::fs::write(&path, "# comment\n\nA=http://127.0.0.1:1/v1?x=y\nB=\n").unwrap();
        let pairs = read_env_file(&path).unwrap();
        assert_eq!(
            pairs,
            vec![
                ("A".to_owned(), "http://127.0.0.1:1/v1?x=y".to_owned()),
                ("B".to_owned(), String::new()),
            ]
        );
        std::fs::write(&path, "A=1\nnot a pair\n").unwrap();
        let err = read_env_file(&path).unwrap_err();
        assert!(err.contains(":2: expected KEY=VALUE"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
