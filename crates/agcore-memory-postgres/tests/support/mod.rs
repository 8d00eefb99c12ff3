//! Test databases: each test store lives in a fresh schema of the server
//! named by `AGCORE_TEST_POSTGRES_URL`, dropped by [`drop_schemas`].
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::EvictionConfig;
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::service_url;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The server URL, or `None` (with a printed reason) when no server is
/// configured outside CI; under CI a missing server fails the test.
pub fn url() -> Option<String> {
    service_url("AGCORE_TEST_POSTGRES_URL")
}

/// A schema name unique to this process and call.
pub fn schema_name(tag: &str) -> String {
    format!(
        "agt_{tag}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A database in a fresh schema.
pub async fn fresh(url: &str, tag: &str, eviction: EvictionConfig) -> (PostgresDatabase, String) {
    let schema = schema_name(tag);
    let db = PostgresDatabase::builder()
        .schema(schema.clone())
        .pool_size(4)
        .eviction(eviction)
        .open(url)
        .await
        .unwrap();
    (db, schema)
}

/// A plain connection to the server (no migration: the tests never touch
/// the tables of the connection's default schema).
pub async fn admin(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// Drops every schema of this process whose name starts with `agt_{tag}_`.
pub async fn drop_schemas(url: &str, tag: &str) {
    let client = admin(url).await;
    let prefix = format!("agt_{tag}_{}_", std::process::id());
    let rows = client
        .query(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)",
            &[&prefix],
        )
        .await
        .unwrap();
    for row in rows {
        let name: String = row.get(0);
        client
            .batch_execute(&format!("DROP SCHEMA {name} CASCADE"))
            .await
            .unwrap();
    }
}

/// A private server run by `scripts/databases.sh instance …` (found through
/// `AGCORE_DATABASES_SCRIPT`, else in the workspace), for fault tests.
pub struct Instance {
    kind: &'static str,
    dir: tempfile::TempDir,
    port: u16,
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

impl Instance {
    /// Starts a fresh `kind` server (`postgres`, `mariadb`, `redis`) on a
    /// free port; returns it and its URL.
    pub fn start(kind: &'static str) -> (Self, String) {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let instance = Self {
            kind,
            dir: tempfile::tempdir().unwrap(),
            port,
        };
        let url = instance.resume();
        (instance, url)
    }

    /// Starts it again on the same data and port; returns its URL.
    pub fn resume(&self) -> String {
        let dir = self.dir.path().to_str().unwrap();
        let out = run_script(&["instance", "start", self.kind, dir, &self.port.to_string()]);
        out.lines().last().unwrap_or_default().to_owned()
    }

    /// Shuts it down cleanly (data kept).
    pub fn stop(&self) {
        run_script(&[
            "instance",
            "stop",
            self.kind,
            self.dir.path().to_str().unwrap(),
        ]);
    }
}

impl Instance {
    /// Kills it (SIGKILL, a crash; data kept).
    pub fn kill(&self) {
        run_script(&[
            "instance",
            "kill",
            self.kind,
            self.dir.path().to_str().unwrap(),
        ]);
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let dir = self.dir.path().to_str().unwrap_or_default().to_owned();
        let _ = std::process::Command::new("bash")
            .arg(script())
            .args(["instance", "kill", self.kind, &dir])
            .status();
    }
}
