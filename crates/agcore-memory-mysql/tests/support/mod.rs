//! Test databases: each test store lives in a fresh database of the server
//! named by `AGCORE_TEST_MYSQL_URL`, dropped by [`drop_databases`]; and
//! [`Mysql`], this driver's [`ServerHarness`] for the shared checks.
#![allow(dead_code)]

use std::sync::Arc;

use agcore_memory::long_term::LongTermMemory;
use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_testkit::drivers::{Opened, ServerHarness, instance_name, instance_prefix};
use agcore_memory_testkit::service_url;
use mysql_async::prelude::Queryable;

/// The server URL, or `None` (with a printed reason) when no server is
/// configured outside CI; under CI a missing server fails the test.
pub fn url() -> Option<String> {
    service_url("AGCORE_TEST_MYSQL_URL")
}

/// A database name unique to this process and call.
pub fn database_name(tag: &str) -> String {
    instance_name("_", tag)
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
    drop_with_prefix(url, &instance_prefix("_", tag)).await;
}

/// Drops every database whose name starts with `prefix`.
async fn drop_with_prefix(url: &str, prefix: &str) {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    let names: Vec<String> = conn.query("SHOW DATABASES").await.unwrap();
    for name in names.into_iter().filter(|n| n.starts_with(prefix)) {
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

/// MySQL / MariaDB for the shared checks of
/// [`agcore_memory_testkit::drivers`]: an instance is a database.
pub struct Mysql;

impl ServerHarness for Mysql {
    fn name(&self) -> &'static str {
        "mysql"
    }

    fn url_var(&self) -> &'static str {
        "AGCORE_TEST_MYSQL_URL"
    }

    fn server_kind(&self) -> &'static str {
        "mariadb"
    }

    fn child_instance_env(&self) -> &'static str {
        "AGCORE_MULTIPROCESS_DATABASE"
    }

    async fn create(&self, url: &str, name: &str) {
        create(url, name).await;
    }

    async fn open(&self, url: &str, name: &str, pool_size: usize) -> Opened {
        let db = MysqlDatabase::builder()
            .pool_size(pool_size)
            .open(&with_database(url, name))
            .await
            .unwrap();
        Opened {
            store: Arc::new(db.store()),
            long_term: Some(LongTermMemory::new(db.long_term())),
        }
    }

    async fn open_with_timeouts(&self, url: &str) -> Arc<dyn MemoryStore> {
        let db = MysqlDatabase::builder()
            .acquire_timeout(std::time::Duration::from_secs(2))
            .pool_size(2)
            .open(url)
            .await
            .unwrap();
        Arc::new(db.store())
    }

    async fn drop_instances(&self, url: &str, prefix: &str) {
        drop_with_prefix(url, prefix).await;
    }

    async fn before_searches(&self, url: &str) -> u64 {
        disk_temp_tables(url).await
    }

    /// A search copying its rows, `BLOB`/`TEXT` columns included, into a
    /// temporary table makes it an on-disk one (a file pair in the server's
    /// `tmpdir`, per search). The counter is the server's, shared with the
    /// tests running meanwhile (the whole suite writes none), hence a
    /// bound well under one per search rather than zero.
    async fn after_searches(&self, url: &str, before: u64, searches: usize) {
        let written = disk_temp_tables(url).await.saturating_sub(before);
        assert!(
            written < (searches / 8) as u64,
            "{searches} searches wrote {written} on-disk temporary tables"
        );
    }
}
