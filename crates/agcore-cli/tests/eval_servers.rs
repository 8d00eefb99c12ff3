//! `agcore eval --store URL` on the test servers (`AGCORE_TEST_POSTGRES_URL`,
//! `AGCORE_TEST_MYSQL_URL`, `AGCORE_TEST_REDIS_URL`; skipped without them
//! outside CI): the same figures as the in-memory store — every retriever,
//! dense and hybrid ones with the built-in hashing embedder, whose vectors
//! the server stores — and nothing left behind on the server.
#![cfg(test)]

use crate::eval_support;

use agcore::memory::postgres::PostgresDatabase;
use agcore_memory_testkit::service_url;
use eval_support::{agcore, fixture};
use mysql_async::prelude::Queryable;
use serde_json::Value;

/// The report of a run of every retriever on the two-conversation fixture
/// on `store`.
fn run(store: &str) -> Value {
    let path = fixture("locomo_namespaces.json");
    let out = agcore()
        .args(["eval", "--locomo", path.to_str().unwrap()])
        .args(["--format", "text", "--retriever", "all", "--json"])
        .args(["--embedder", "hashing:64", "--store", store])
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The figures of a report, without its latencies and timings.
fn figures(report: &Value) -> Vec<Value> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!([r["retriever"], r["overall"], r["categories"]]))
        .collect()
}

fn same_as_memory(store: &str, kind: &str) {
    let reference = run("memory");
    let report = run(store);
    assert_eq!(report["store"], kind, "{report}");
    assert_eq!(report["namespaces"], 2, "{report}");
    assert_eq!(figures(&report), figures(&reference), "{report}");
    let names: Vec<String> = figures(&report)
        .iter()
        .filter_map(|f| f[0].as_str().map(str::to_owned))
        .collect();
    for name in ["lexical", "dense", "hybrid"] {
        assert!(names.iter().any(|n| n == name), "{name}: {report}");
    }
    assert!(
        figures(&report)[0][1]["recall_at_10"].as_f64() > Some(0.0),
        "{report}"
    );
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn eval_on_postgres_matches_memory_and_drops_its_schemas() {
    let Some(url) = service_url("AGCORE_TEST_POSTGRES_URL") else {
        return;
    };
    let sep = if url.contains('?') { '&' } else { '?' };
    let own = format!("agt_cli_eval_{}", std::process::id());
    let count = || {
        runtime().block_on(async {
            let db = PostgresDatabase::open(&format!("{url}{sep}schema={own}"))
                .await
                .unwrap();
            let client = db.pool().get().await.unwrap();
            let row = client
                .query_one(
                    "SELECT count(*) FROM information_schema.schemata
                     WHERE schema_name LIKE 'agcore\\_eval\\_%'",
                    &[],
                )
                .await
                .unwrap();
            row.get::<_, i64>(0)
        })
    };
    let before = count();
    same_as_memory(&url, "postgres");
    let after = count();
    crate::cli_support::drop_pg_schema(&url, &own);
    assert_eq!(after, before, "the evaluation's schemas are dropped");
}

#[test]
fn eval_on_mysql_matches_memory_and_drops_its_databases() {
    let Some(url) = service_url("AGCORE_TEST_MYSQL_URL") else {
        return;
    };
    let count = || {
        runtime().block_on(async {
            let pool = mysql_async::Pool::new(url.as_str());
            let mut conn = pool.get_conn().await.unwrap();
            let names: Vec<String> = conn
                .query("SHOW DATABASES LIKE 'agcore\\_eval\\_%'")
                .await
                .unwrap();
            drop(conn);
            pool.disconnect().await.unwrap();
            names.len()
        })
    };
    let before = count();
    same_as_memory(&url, "mysql");
    assert_eq!(count(), before, "the evaluation's databases are dropped");
}

#[test]
fn eval_on_redis_matches_memory_and_deletes_its_keys() {
    let Some(url) = service_url("AGCORE_TEST_REDIS_URL") else {
        return;
    };
    let count = || {
        let client = redis::Client::open(url.as_str()).unwrap();
        runtime().block_on(async {
            let mut conn = client.get_multiplexed_async_connection().await.unwrap();
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg("agcore_eval_*")
                .query_async(&mut conn)
                .await
                .unwrap();
            keys.len()
        })
    };
    let before = count();
    same_as_memory(&url, "redis");
    assert_eq!(count(), before, "the evaluation's keys are deleted");
}
