//! Test stores: each under a fresh key prefix of the server named by
//! `AGCORE_TEST_REDIS_URL`, and private servers for fault tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::EvictionConfig;
use agcore_memory::retriever::ContextField;
use agcore_memory_redis::RedisStore;
use agcore_memory_testkit::service_url;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The server URL, or `None` (with a printed reason) outside CI.
pub fn url() -> Option<String> {
    service_url("AGCORE_TEST_REDIS_URL")
}

/// A store under a prefix unique to this process and call.
pub async fn fresh(url: &str, tag: &str, eviction: EvictionConfig) -> RedisStore {
    fresh_with(url, tag, eviction, Some(ContextField::default())).await
}

/// [`fresh`] with the given context field.
pub async fn fresh_with(
    url: &str,
    tag: &str,
    eviction: EvictionConfig,
    field: Option<ContextField>,
) -> RedisStore {
    let prefix = format!(
        "agt:{tag}:{}:{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    RedisStore::builder()
        .prefix(prefix)
        .eviction(eviction)
        .context_field(field)
        .open(url)
        .await
        .unwrap()
}

/// Deletes every key of this process's test prefixes for `tag`.
pub fn drop_keys(url: &str, tag: &str) {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_connection().unwrap();
    let pattern = format!("agt:{tag}:{}:*", std::process::id());
    let keys: Vec<String> = redis::cmd("KEYS").arg(pattern).query(&mut conn).unwrap();
    for chunk in keys.chunks(500) {
        let _: () = redis::cmd("DEL").arg(chunk).query(&mut conn).unwrap();
    }
}

fn script() -> String {
    std::env::var("AGCORE_DATABASES_SCRIPT")
        .unwrap_or_else(|_| format!("{}/../../scripts/databases.sh", env!("CARGO_MANIFEST_DIR")))
}

fn run_script(args: &[&str]) -> String {
    let out = std::process::Command::new("bash")
        .arg(script())
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "databases.sh {args:?} failed");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A private Redis server with append-only persistence, for fault tests.
pub struct Instance {
    dir: tempfile::TempDir,
    port: u16,
}

impl Instance {
    /// Starts it on a free port; returns it and its URL.
    pub fn start() -> (Self, String) {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let instance = Self {
            dir: tempfile::tempdir().unwrap(),
            port,
        };
        let url = instance.resume();
        (instance, url)
    }

    /// Starts it again on the same data and port.
    pub fn resume(&self) -> String {
        let dir = self.dir.path().to_str().unwrap();
        let out = run_script(&["instance", "start", "redis", dir, &self.port.to_string()]);
        out.lines().last().unwrap_or_default().to_owned()
    }

    /// Shuts it down cleanly.
    pub fn stop(&self) {
        run_script(&[
            "instance",
            "stop",
            "redis",
            self.dir.path().to_str().unwrap(),
        ]);
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let dir = self.dir.path().to_str().unwrap_or_default().to_owned();
        let _ = std::process::Command::new("bash")
            .arg(script())
            .args(["instance", "kill", "redis", &dir])
            .status();
    }
}
