//! Running a child process with a time limit while capturing its output.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How often the child is polled for its exit.
const POLL: Duration = Duration::from_millis(50);

/// What a [`run`] produced.
#[derive(Debug)]
pub struct Outcome {
    /// The exit status; `None` when the time limit killed the process.
    pub status: Option<ExitStatus>,
    /// Everything written to stdout (lossy UTF-8).
    pub stdout: String,
    /// Everything written to stderr (lossy UTF-8).
    pub stderr: String,
    /// Wall-clock run time in seconds.
    pub seconds: f64,
}

/// Runs `command` with stdin closed and stdout/stderr captured, in a process group of its
/// own. After `limit` the whole group (the child and anything it started, such as an MCP
/// server) gets `SIGKILL` and the outcome has no status.
///
/// # Errors
/// A message when the process cannot be started or waited for.
pub fn run(mut command: Command, limit: Duration) -> Result<Outcome, String> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|err| format!("cannot start {:?}: {err}", command.get_program()))?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait(&mut child, started, limit)?;
    Ok(Outcome {
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Waits for `child` until `limit` has passed since `started`, then kills its group.
fn wait(
    child: &mut Child,
    started: Instant,
    limit: Duration,
) -> Result<Option<ExitStatus>, String> {
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|err| format!("waiting for pid {}: {err}", child.id()))?
        {
            return Ok(Some(status));
        }
        if started.elapsed() >= limit {
            // The group id is the child's pid (process_group(0)); `kill -- -PGID` signals
            // every member. Fall back to the child alone when `kill` is unavailable.
            let group = format!("-{}", child.id());
            let killed = Command::new("kill")
                .args(["-KILL", "--", &group])
                .status()
                .is_ok_and(|status| status.success());
            if !killed {
                child.kill().ok();
            }
            child.wait().ok();
            return Ok(None);
        }
        thread::sleep(POLL);
    }
}

/// Reads a pipe to its end on a thread of its own, so a full pipe never blocks the child.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut pipe| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).ok();
            bytes
        })
    })
}

fn collect(reader: Option<JoinHandle<Vec<u8>>>) -> String {
    reader
        .and_then(|handle| handle.join().ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_status_are_captured() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo out; echo err >&2; exit 3"]);
        let outcome = run(command, Duration::from_secs(30)).unwrap();
        assert_eq!(outcome.stdout, "out\n");
        assert_eq!(outcome.stderr, "err\n");
        assert_eq!(outcome.status.and_then(|s| s.code()), Some(3));
    }

    #[test]
    fn the_limit_kills_the_process_group() {
        // The background `sleep` keeps stdout open: only a group kill lets the readers end.
        let mut command = Command::new("sh");
        command.args(["-c", "echo started; sleep 30 & sleep 30"]);
        let outcome = run(command, Duration::from_millis(300)).unwrap();
        assert!(outcome.status.is_none());
        assert_eq!(outcome.stdout, "started\n");
        assert!(outcome.seconds < 10.0, "took {} s", outcome.seconds);
    }
}
