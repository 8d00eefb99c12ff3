//! Shared fixtures of the `agcore` command tests: a private home per test.
#![cfg(test)]
#![allow(dead_code)]

use std::path::PathBuf;

use assert_cmd::Command;
use tempfile::TempDir;

pub mod sse;

/// A temporary home: `HOME` and `XDG_*` point into it, no endpoint variables.
pub struct Home {
    pub dir: TempDir,
}

impl Home {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// `path` inside the home.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The memory database of the tests.
    pub fn db(&self) -> PathBuf {
        self.path("memory.db")
    }

    /// `agcore` with this home and a clean environment.
    pub fn agcore(&self) -> Command {
        let mut cmd = Command::cargo_bin("agcore").unwrap();
        let root = self.dir.path();
        cmd.env("HOME", root)
            .env("XDG_CONFIG_HOME", root.join("config"))
            .env("XDG_DATA_HOME", root.join("data"))
            .env("XDG_CACHE_HOME", root.join("cache"))
            .env("USER", "tester")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .env_remove("AGCORE_MODEL")
            .env_remove("AGCORE_CONFIG")
            .env_remove("RUST_LOG")
            .current_dir(root);
        cmd
    }

    /// `agcore memory <args> --db <db> --user alice`.
    pub fn memory(&self, args: &[&str]) -> Command {
        let mut cmd = self.agcore();
        cmd.arg("memory")
            .args(args)
            .arg("--db")
            .arg(self.db())
            .args(["--user", "alice"]);
        cmd
    }

    /// Runs `agcore memory <args>` (scope alice) expecting success; its stdout.
    pub fn memory_ok(&self, args: &[&str]) -> String {
        let out = self.memory(args).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    }

    /// `memory list --json --archived` of alice, parsed.
    pub fn entries(&self) -> Vec<serde_json::Value> {
        let text = self.memory_ok(&["list", "--json", "--archived", "--sort", "created"]);
        serde_json::from_str(&text).unwrap()
    }
}

/// A home whose memory database holds three entries of alice: a `user`
/// entry tagged `Drinks,prefs`, a Chinese `feedback` entry named `语言` and a
/// `project` entry of weight 0.2.
pub fn seeded() -> Home {
    let home = Home::new();
    home.memory_ok(&[
        "add",
        "Alice prefers green tea in the afternoon",
        "--type",
        "user",
        "--tags",
        "Drinks,prefs",
    ]);
    home.memory_ok(&[
        "add",
        "用户喜欢用中文交流",
        "--type",
        "feedback",
        "--name",
        "语言",
    ]);
    home.memory_ok(&[
        "add",
        "The payment refactor is due in April",
        "--type",
        "project",
        "--weight",
        "0.2",
    ]);
    home
}

/// Drops the schema `schema` (a test's own) from the PostgreSQL server at
/// `url`, through a store opened on that schema, so the default schema is
/// never touched and reruns leave nothing behind.
pub fn drop_pg_schema(url: &str, schema: &str) {
    let sep = if url.contains('?') { '&' } else { '?' };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let db = agcore::memory::postgres::PostgresDatabase::builder()
            .pool_size(1)
            .open(&format!("{url}{sep}schema={schema}"))
            .await
            .unwrap();
        let client = db.pool().get().await.unwrap();
        client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
            .await
            .unwrap();
    });
}
