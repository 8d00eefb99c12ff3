//! Test databases: each test store lives in a fresh database of the server
//! named by `AGCORE_TEST_MYSQL_URL`, dropped by [`drop_databases`].
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::EvictionConfig;
use agcore_memory::retriever::ContextField;
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_testkit::service_url;
use mysql_async::prelude::Queryable;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The server URL, or `None` (with a printed reason) when no server is
/// configured outside CI; under CI a missing server fails the test.
pub fn url() -> Option<String> {
    service_url("AGCORE_TEST_MYSQL_URL")
}

/// A database name unique to this process and call.
pub fn database_name(tag: &str) -> String {
    format!(
        "agt_{tag}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// `url` with its database replaced by `database`.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let root = base.rsplit_once('/').map_or(base, |(root, _)| root);
    format!("{root}/{database}{query}")
}

/// Creates database `name` on the server of `url`.
pub async fn create(url: &str, name: &str) {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    conn.query_drop(format!("CREATE DATABASE IF NOT EXISTS {name}"))
        .await
        .unwrap();
    drop(conn);
    pool.disconnect().await.unwrap();
}

/// A database in a fresh server database; returns it and its URL.
pub async fn fresh(url: &str, tag: &str, eviction: EvictionConfig) -> (MysqlDatabase, String) {
    fresh_with(url, tag, eviction, Some(ContextField::default())).await
}

/// [`fresh`] with the given context field.
pub async fn fresh_with(
    url: &str,
    tag: &str,
    eviction: EvictionConfig,
    field: Option<ContextField>,
) -> (MysqlDatabase, String) {
    let name = database_name(tag);
    create(url, &name).await;
    let url = with_database(url, &name);
    let db = MysqlDatabase::builder()
        .pool_size(4)
        .eviction(eviction)
        .context_field(field)
        .open(&url)
        .await
        .unwrap();
    (db, url)
}

/// Drops every database of this process whose name starts with `agt_{tag}_`.
pub async fn drop_databases(url: &str, tag: &str) {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    let prefix = format!("agt_{tag}_{}_", std::process::id());
    let names: Vec<String> = conn.query("SHOW DATABASES").await.unwrap();
    for name in names.into_iter().filter(|n| n.starts_with(&prefix)) {
        conn.query_drop(format!("DROP DATABASE {name}"))
            .await
            .unwrap();
    }
    drop(conn);
    pool.disconnect().await.unwrap();
}

/// The server's count of internal temporary tables written to disk so far
/// (`Created_tmp_disk_tables`, all sessions).
pub async fn disk_temp_tables(url: &str) -> u64 {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    let row: Option<(String, u64)> = conn
        .query_first("SHOW GLOBAL STATUS LIKE 'Created_tmp_disk_tables'")
        .await
        .unwrap();
    drop(conn);
    pool.disconnect().await.unwrap();
    row.map_or(0, |(_, n)| n)
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
