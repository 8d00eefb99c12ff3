//! Test databases: each test store lives in a fresh schema of the server
//! named by `AGCORE_TEST_POSTGRES_URL`, dropped by [`drop_schemas`]; and
//! [`Postgres`], this driver's [`ServerHarness`] for the shared checks.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use agcore_memory::long_term::LongTermMemory;
use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::drivers::{Opened, ServerHarness, instance_name, instance_prefix};
use agcore_memory_testkit::service_url;

/// The server URL, or `None` (with a printed reason) when no server is
/// configured outside CI; under CI a missing server fails the test.
pub fn url() -> Option<String> {
    service_url("AGCORE_TEST_POSTGRES_URL")
}

/// A schema name unique to this process and call.
pub fn schema_name(tag: &str) -> String {
    instance_name("_", tag)
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
    drop_with_prefix(url, &instance_prefix("_", tag)).await;
}

/// Drops every schema whose name starts with `prefix`.
async fn drop_with_prefix(url: &str, prefix: &str) {
    let client = admin(url).await;
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

/// PostgreSQL for the shared checks of [`agcore_memory_testkit::drivers`]:
/// an instance is a schema.
pub struct Postgres;

impl ServerHarness for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn url_var(&self) -> &'static str {
        "AGCORE_TEST_POSTGRES_URL"
    }

    fn server_kind(&self) -> &'static str {
        "postgres"
    }

    fn child_instance_env(&self) -> &'static str {
        "AGCORE_MULTIPROCESS_SCHEMA"
    }

    async fn open(&self, url: &str, name: &str, pool_size: usize) -> Opened {
        let db = PostgresDatabase::builder()
            .schema(name)
            .pool_size(pool_size)
            .open(url)
            .await
            .unwrap();
        Opened {
            store: Arc::new(db.store()),
            long_term: Some(LongTermMemory::new(db.long_term())),
        }
    }

    async fn open_with_timeouts(&self, url: &str) -> Arc<dyn MemoryStore> {
        let db = PostgresDatabase::builder()
            .connect_timeout(Duration::from_secs(2))
            .wait_timeout(Duration::from_secs(2))
            .pool_size(2)
            .open(url)
            .await
            .unwrap();
        Arc::new(db.store())
    }

    async fn drop_instances(&self, url: &str, prefix: &str) {
        drop_with_prefix(url, prefix).await;
    }
}
