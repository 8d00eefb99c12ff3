//! Test databases: each test store lives in a fresh schema of the server
//! named by `AGCORE_TEST_POSTGRES_URL`, dropped by [`drop_schemas`].
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::EvictionConfig;
use agcore_memory::testkit::service_url;
use agcore_memory_postgres::PostgresDatabase;

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

/// Drops every schema of this process whose name starts with `agt_{tag}_`.
pub async fn drop_schemas(url: &str, tag: &str) {
    let db = PostgresDatabase::builder().pool_size(1).open(url).await.unwrap();
    let client = db.pool().get().await.unwrap();
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
