//! Private database servers for fault tests, run by
//! `scripts/databases.sh instance …`.

use std::process::{Command, Stdio};

use crate::CheckFailure;

/// A private server run by `scripts/databases.sh instance …` (found through
/// `AGCORE_DATABASES_SCRIPT`, else in the workspace) with its data in a
/// temporary directory, for fault tests: stop it, kill it, start it again on
/// the same data and port. Dropping it kills it and removes its data.
///
/// Each method fails (`Err`, with the script's arguments) when the script
/// does; the script's own messages go to the test's stderr.
#[derive(Debug)]
pub struct PrivateServer {
    kind: String,
    dir: tempfile::TempDir,
    port: u16,
}

fn script() -> String {
    std::env::var("AGCORE_DATABASES_SCRIPT")
        .unwrap_or_else(|_| format!("{}/../../scripts/databases.sh", env!("CARGO_MANIFEST_DIR")))
}

fn run_script(args: &[&str]) -> Result<String, CheckFailure> {
    let out = Command::new("bash")
        .arg(script())
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|err| CheckFailure(format!("databases.sh {args:?} did not run: {err}")))?;
    if !out.status.success() {
        return Err(CheckFailure(format!("databases.sh {args:?} failed")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

impl PrivateServer {
    /// Starts a fresh `kind` server (`postgres`, `mariadb`, `redis`; Redis
    /// with append-only persistence) on a free port; returns it and its URL.
    ///
    /// # Errors
    /// When no port or directory is free or the server does not start.
    pub fn start(kind: &str) -> Result<(Self, String), CheckFailure> {
        let fail = |err: std::io::Error| CheckFailure(format!("starting a {kind} server: {err}"));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(fail)?
            .port();
        let server = Self {
            kind: kind.to_owned(),
            dir: tempfile::tempdir().map_err(fail)?,
            port,
        };
        let url = server.resume()?;
        Ok((server, url))
    }

    /// Starts it again on the same data and port; returns its URL.
    ///
    /// # Errors
    /// When the server does not start.
    pub fn resume(&self) -> Result<String, CheckFailure> {
        let port = self.port.to_string();
        let out = run_script(&["instance", "start", &self.kind, &self.dir(), &port])?;
        Ok(out.lines().last().unwrap_or_default().to_owned())
    }

    /// Shuts it down cleanly (data kept).
    ///
    /// # Errors
    /// When the script fails.
    pub fn stop(&self) -> Result<(), CheckFailure> {
        run_script(&["instance", "stop", &self.kind, &self.dir()]).map(drop)
    }

    /// Kills it (SIGKILL, as a crash would; data kept).
    ///
    /// # Errors
    /// When the script fails.
    pub fn kill(&self) -> Result<(), CheckFailure> {
        run_script(&["instance", "kill", &self.kind, &self.dir()]).map(drop)
    }

    fn dir(&self) -> String {
        self.dir.path().to_string_lossy().into_owned()
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .args(["instance", "kill", &self.kind, &self.dir()])
            .status();
    }
}
