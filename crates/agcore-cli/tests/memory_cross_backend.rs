//! `agcore memory export` from SQLite imported into PostgreSQL and MySQL /
//! MariaDB (servers from `AGCORE_TEST_POSTGRES_URL` / `AGCORE_TEST_MYSQL_URL`;
//! skipped without them outside CI).
#![cfg(test)]

use crate::cli_support;

use cli_support::seeded;
use serde_json::Value;

/// SQLite → PostgreSQL: an export imported into an empty PostgreSQL schema
/// exports byte for byte the same JSONL (ids are reassigned 1..n in order).
#[test]
fn export_from_sqlite_imports_into_postgres_identically() {
    let Some(pg) = agcore_memory_testkit::service_url("AGCORE_TEST_POSTGRES_URL") else {
        return;
    };
    let sep = if pg.contains('?') { '&' } else { '?' };
    let schema = format!("agt_cli_move_{}", std::process::id());
    let url = format!("{pg}{sep}schema={schema}");
    let home = seeded();
    home.memory_ok(&["clean", "--below-weight", "0.5"]);
    let file = home.path("move.jsonl");
    home.memory_ok(&["export", "--all-scopes", file.to_str().unwrap()]);
    let exported = std::fs::read_to_string(&file).unwrap();

    let mut import = home.agcore();
    import
        .args([
            "memory",
            "import",
            file.to_str().unwrap(),
            "--all-scopes",
            "--json",
        ])
        .args(["--db", &url]);
    let out = import.assert().success().get_output().stdout.clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["imported"], 3, "{report}");

    let mut again = home.agcore();
    again.args(["memory", "export", "--all-scopes", "--db", &url]);
    let reexported =
        String::from_utf8(again.assert().success().get_output().stdout.clone()).unwrap();
    assert_eq!(exported, reexported);

    let mut stats = home.agcore();
    stats.args(["memory", "stats", "--json", "--user", "alice", "--db", &url]);
    let out = stats.assert().success().get_output().stdout.clone();
    let stats: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(stats["backend"]["kind"], "postgres");
    assert!(
        stats["backend"]["version"]
            .as_str()
            .unwrap()
            .starts_with("PostgreSQL ")
    );
    cli_support::drop_pg_schema(&pg, &schema);
}

/// SQLite → MySQL / MariaDB: an export imported into an empty database
/// exports byte for byte the same JSONL (ids are reassigned 1..n in order).
#[test]
fn export_from_sqlite_imports_into_mysql_identically() {
    use mysql_async::prelude::Queryable;
    let Some(base) = agcore_memory_testkit::service_url("AGCORE_TEST_MYSQL_URL") else {
        return;
    };
    let database = format!("agt_cli_move_{}", std::process::id());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let admin = |sql: String| {
        let base = base.clone();
        rt.block_on(async move {
            let pool = mysql_async::Pool::new(base.as_str());
            let mut conn = pool.get_conn().await.unwrap();
            conn.query_drop(sql).await.unwrap();
            drop(conn);
            pool.disconnect().await.unwrap();
        });
    };
    admin(format!("DROP DATABASE IF EXISTS {database}"));
    admin(format!("CREATE DATABASE {database}"));
    let root = base
        .rsplit_once('/')
        .map_or(base.as_str(), |(root, _)| root);
    let url = format!("{root}/{database}");
    let home = seeded();
    home.memory_ok(&["clean", "--below-weight", "0.5"]);
    let file = home.path("move.jsonl");
    home.memory_ok(&["export", "--all-scopes", file.to_str().unwrap()]);
    let exported = std::fs::read_to_string(&file).unwrap();

    let mut import = home.agcore();
    import
        .args([
            "memory",
            "import",
            file.to_str().unwrap(),
            "--all-scopes",
            "--json",
        ])
        .args(["--db", &url]);
    let out = import.assert().success().get_output().stdout.clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["imported"], 3, "{report}");

    let mut again = home.agcore();
    again.args(["memory", "export", "--all-scopes", "--db", &url]);
    let reexported =
        String::from_utf8(again.assert().success().get_output().stdout.clone()).unwrap();
    assert_eq!(exported, reexported);

    let mut stats = home.agcore();
    stats.args(["memory", "stats", "--json", "--user", "alice", "--db", &url]);
    let out = stats.assert().success().get_output().stdout.clone();
    let stats: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(stats["backend"]["kind"], "mysql");
    let version = stats["backend"]["version"].as_str().unwrap();
    assert!(
        version.starts_with("MariaDB ") || version.starts_with("MySQL "),
        "{version}"
    );
    admin(format!("DROP DATABASE {database}"));
}
