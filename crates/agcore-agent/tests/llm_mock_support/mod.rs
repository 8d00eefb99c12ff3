//! A third-party OpenAI emulator with failure injection (npm
//! `@copilotkit/aimock`'s `llmock`, installed by `scripts/services.sh` and
//! named by `AGCORE_TEST_LLM_MOCK_CMD`), started per test on a free port
//! with its fixtures and chaos flags, stopped on drop.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agcore_memory_testkit::service_url;

/// A running `llmock`.
pub struct LlmMock {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl LlmMock {
    /// Starts the emulator serving `fixtures` (aimock's fixture file format)
    /// with extra `flags` (e.g. `--chaos-drop 0.2`); `None` when the command
    /// is not configured outside CI.
    pub fn start(fixtures: &serde_json::Value, flags: &[&str]) -> Option<Self> {
        let command = service_url("AGCORE_TEST_LLM_MOCK_CMD")?;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fixtures.json");
        std::fs::write(&file, fixtures.to_string()).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(command)
            .args([
                "--port",
                &port.to_string(),
                "--log-level",
                "warn",
                "--fixtures",
            ])
            .arg(&file)
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mock = Self {
            child,
            port,
            _dir: dir,
        };
        let started = Instant::now();
        while mock.get("/__aimock/health").is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "llmock did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(mock)
    }

    /// The `/v1` base URL.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Chat completion requests the emulator has recorded (its journal).
    pub fn chat_requests(&self) -> usize {
        let response = self
            .get("/__aimock/journal?path=/v1/chat/completions&limit=1")
            .unwrap_or_default();
        response
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("x-total-count")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0)
    }

    /// A plain HTTP/1.0 GET: the whole response with headers, or `None`.
    fn get(&self, path: &str) -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
        let mut out = String::new();
        stream.read_to_string(&mut out).ok()?;
        out.starts_with("HTTP/1.1 200").then_some(out)
    }
}

impl Drop for LlmMock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
