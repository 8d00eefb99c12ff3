//! `agcore memory …` end to end: every subcommand, the JSONL round trip and
//! bad input, against a SQLite database in a temporary home.
#![cfg(test)]

mod cli_support;

use cli_support::Home;
use predicates::prelude::*;
use serde_json::Value;

fn seeded() -> Home {
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

#[test]
fn add_list_search_delete() {
    let home = seeded();
    let table = home.memory_ok(&["list"]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("ID  TYPE"), "{table}");
    assert!(table.contains("用户喜欢用中文交流") && table.contains("feedback"));
    // Columns line up: CONTENT starts at the same column in every row.
    let at = lines[0].find("CONTENT").unwrap();
    assert!(lines[1..].iter().all(|l| l.len() > at), "{table}");

    let entries = home.entries();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0]["tags"], serde_json::json!(["drinks", "prefs"]));
    assert_eq!(entries[1]["name"], "语言");
    assert_eq!(entries[2]["weight"], 0.2);

    let hits: Vec<Value> =
        serde_json::from_str(&home.memory_ok(&["search", "green tea", "--json"])).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits[0]["entry"]["content"],
        "Alice prefers green tea in the afternoon"
    );
    assert!(hits[0]["score"].as_f64().unwrap() > 0.0);
    let hits: Vec<Value> =
        serde_json::from_str(&home.memory_ok(&["search", "中文", "--json"])).unwrap();
    assert_eq!(hits[0]["entry"]["memory_type"], "feedback");
    assert!(home.memory_ok(&["search", "green tea"]).contains("SCORE"));

    // Filters.
    let projects: Vec<Value> =
        serde_json::from_str(&home.memory_ok(&["list", "--type", "project", "--json"])).unwrap();
    assert_eq!(projects.len(), 1);
    let limited: Vec<Value> =
        serde_json::from_str(&home.memory_ok(&["list", "--limit", "2", "--json"])).unwrap();
    assert_eq!(limited.len(), 2);

    // The same text again updates instead of duplicating.
    let again: Value = serde_json::from_str(&home.memory_ok(&[
        "add",
        "alice prefers GREEN tea in the afternoon",
        "--json",
    ]))
    .unwrap();
    assert_eq!(again["created"], false);
    assert_eq!(home.entries().len(), 3);

    let id = entries[0]["id"].as_i64().unwrap().to_string();
    assert!(home.memory_ok(&["delete", &id]).contains("deleted memory"));
    assert_eq!(home.entries().len(), 2);
    home.memory(&["delete", &id])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(format!(
            "memory {id} does not exist in assistant/alice"
        )));
}

#[test]
fn scopes_are_separate() {
    let home = seeded();
    let mut bob = home.agcore();
    bob.args(["memory", "list", "--json", "--user", "bob", "--db"])
        .arg(home.db());
    let out = bob.assert().success().get_output().stdout.clone();
    assert_eq!(serde_json::from_slice::<Vec<Value>>(&out).unwrap().len(), 0);
}

#[test]
fn unknown_type_and_empty_text_are_bad_input() {
    let home = seeded();
    home.memory(&["add", "x", "--type", "preferencez"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "unknown memory type `preferencez`",
        ));
    home.memory(&["add", "   "]).assert().code(3);
    home.memory(&["list", "--type", "nope"]).assert().code(3);
    assert_eq!(home.entries().len(), 3);
}

#[test]
fn clean_dry_run_changes_nothing_then_archives_and_deletes() {
    let home = seeded();
    let before = home.memory_ok(&["export"]);
    let dry = home.memory_ok(&["clean", "--below-weight", "0.5", "--dry-run"]);
    assert!(
        dry.contains("would archive 1 memory") && dry.contains("payment refactor"),
        "{dry}"
    );
    let dry_json: Value = serde_json::from_str(&home.memory_ok(&[
        "clean",
        "--type",
        "user",
        "--delete",
        "--dry-run",
        "--json",
    ]))
    .unwrap();
    assert_eq!(dry_json["count"], 1);
    assert_eq!(dry_json["dry_run"], true);
    assert_eq!(
        home.memory_ok(&["export"]),
        before,
        "a dry run wrote something"
    );

    let done: Value =
        serde_json::from_str(&home.memory_ok(&["clean", "--below-weight", "0.5", "--json"]))
            .unwrap();
    assert_eq!(done["action"], "archive");
    assert_eq!(done["entries"][0]["archived"], true);
    let entries = home.entries();
    let archived: Vec<&Value> = entries.iter().filter(|e| e["archived"] == true).collect();
    assert_eq!(archived.len(), 1);
    assert_eq!(archived[0]["memory_type"], "project");
    // Archived memories leave the default listing and search.
    let active: Vec<Value> = serde_json::from_str(&home.memory_ok(&["list", "--json"])).unwrap();
    assert_eq!(active.len(), 2);

    // Nothing is older than a day; everything is older than "0 days ago" … minus a moment.
    let none: Value =
        serde_json::from_str(&home.memory_ok(&["clean", "--older-than", "1", "--json"])).unwrap();
    assert_eq!(none["count"], 0);
    let deleted: Value = serde_json::from_str(
        &home.memory_ok(&["clean", "--type", "feedback", "--delete", "--json"]),
    )
    .unwrap();
    assert_eq!(deleted["count"], 1);
    assert_eq!(home.entries().len(), 2);
    // A rule is required.
    home.memory(&["clean"]).assert().code(2);
}

#[test]
fn stats_count_per_scope_and_type_with_database_size() {
    let home = seeded();
    let mut bob = home.agcore();
    bob.args(["memory", "add", "Bob likes coffee", "--user", "bob", "--db"])
        .arg(home.db());
    bob.assert().success();
    home.memory_ok(&["clean", "--below-weight", "0.5"]);

    let stats: Value = serde_json::from_str(&home.memory_ok(&["stats", "--json"])).unwrap();
    assert_eq!(stats["scopes"].as_array().unwrap().len(), 1);
    let alice = &stats["scopes"][0];
    assert_eq!(alice["user"], "alice");
    assert_eq!(alice["active"], 2);
    assert_eq!(alice["archived"], 1);
    assert_eq!(alice["by_type"]["project"]["archived"], 1);
    assert_eq!(alice["by_type"]["user"]["active"], 1);
    assert_eq!(stats["backend"]["kind"], "sqlite");
    assert!(
        stats["backend"]["version"]
            .as_str()
            .unwrap()
            .starts_with("SQLite 3.")
    );
    let db = &stats["database"];
    assert!(db["main_bytes"].as_u64().unwrap() > 0);
    assert_eq!(
        db["total_bytes"].as_u64().unwrap(),
        db["main_bytes"].as_u64().unwrap()
            + db["wal_bytes"].as_u64().unwrap()
            + db["shm_bytes"].as_u64().unwrap()
    );

    let all: Value =
        serde_json::from_str(&home.memory_ok(&["stats", "--all-scopes", "--json"])).unwrap();
    assert_eq!(all["scopes"].as_array().unwrap().len(), 2);
    assert_eq!(all["total_active"], 3);
    let text = home.memory_ok(&["stats", "--all-scopes"]);
    assert!(
        text.starts_with("backend sqlite (SQLite 3.")
            && text.contains("\ndatabase ")
            && text.contains("bob")
            && text.contains("total: 3 active, 1 archived in 2 scopes"),
        "{text}"
    );
}

/// Lines of an export with the ids removed.
fn without_ids(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("id");
            v
        })
        .collect()
}

#[test]
fn export_import_round_trip_is_lossless() {
    let home = seeded();
    home.memory_ok(&["clean", "--below-weight", "0.5"]);
    let file = home.path("backup.jsonl");
    let msg = home.memory_ok(&["export", file.to_str().unwrap()]);
    assert!(msg.contains("exported 3 memories"), "{msg}");
    let exported = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        exported,
        home.memory_ok(&["export"]),
        "file and stdout exports differ"
    );
    assert_eq!(exported.lines().count(), 3);

    // Into an empty database: identical lines (ids are reassigned 1..n in order).
    let fresh = home.path("fresh.db");
    let mut import = home.agcore();
    import
        .args([
            "memory",
            "import",
            file.to_str().unwrap(),
            "--user",
            "alice",
            "--json",
            "--db",
        ])
        .arg(&fresh);
    let out = import.assert().success().get_output().stdout.clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["imported"], 3);
    let mut again = home.agcore();
    again
        .args(["memory", "export", "--user", "alice", "--db"])
        .arg(&fresh);
    let reexported =
        String::from_utf8(again.assert().success().get_output().stdout.clone()).unwrap();
    for (a, b) in without_ids(&exported)
        .iter()
        .zip(without_ids(&reexported).iter())
    {
        assert_eq!(a, b);
    }
    assert_eq!(exported.lines().count(), reexported.lines().count());

    // Importing the same file again skips every line.
    let twice = home.memory_ok(&["import", file.to_str().unwrap()]);
    assert!(
        twice.contains("imported 0 memories") && twice.contains("3 skipped"),
        "{twice}"
    );
}

#[test]
fn every_field_survives_import_and_scopes_are_kept_on_request() {
    let home = Home::new();
    let line = |id: i64, user: &str, content: &str| {
        serde_json::json!({
            "id": id, "agent_name": "coder", "user_id": user, "memory_type": "reference",
            "name": "spec", "content": content, "description": "说明",
            "metadata": {"url": "https://example.org", "n": [1, 2]}, "tags": ["docs"],
            "weight": 3.25, "archived": true, "use_count": 7,
            "last_used_at": "2025-01-02T03:04:05.123456Z",
            "weight_updated_at": "2025-01-01T00:00:00Z",
            "created_at": "2024-12-31T23:59:59.5Z", "updated_at": "2025-01-01T00:00:00Z"
        })
        .to_string()
    };
    let file = home.path("in.jsonl");
    std::fs::write(
        &file,
        format!(
            "{}\n\n{}\n",
            line(10, "carol", "The spec lives at example.org"),
            line(11, "dave", "Dave's notes")
        ),
    )
    .unwrap();
    let mut import = home.agcore();
    import
        .args([
            "memory",
            "import",
            file.to_str().unwrap(),
            "--all-scopes",
            "--db",
        ])
        .arg(home.db());
    import.assert().success().stdout(predicate::str::contains(
        "imported 2 memories into their own scopes",
    ));
    let mut export = home.agcore();
    export
        .args(["memory", "export", "--all-scopes", "--db"])
        .arg(home.db());
    let text = String::from_utf8(export.assert().success().get_output().stdout.clone()).unwrap();
    let got = without_ids(&text);
    let want = without_ids(&format!(
        "{}\n{}\n",
        line(10, "carol", "The spec lives at example.org"),
        line(11, "dave", "Dave's notes")
    ));
    // Timestamps come back in one canonical form; compare them as instants.
    for (g, w) in got.iter().zip(&want) {
        for key in [
            "agent_name",
            "user_id",
            "memory_type",
            "name",
            "content",
            "description",
            "metadata",
            "tags",
            "weight",
            "archived",
            "use_count",
        ] {
            assert_eq!(g[key], w[key], "{key}");
        }
        for key in [
            "last_used_at",
            "weight_updated_at",
            "created_at",
            "updated_at",
        ] {
            let parse =
                |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
            assert_eq!(parse(&g[key]), parse(&w[key]), "{key}");
        }
    }
    assert_eq!(got.len(), 2);
}

#[test]
fn bad_jsonl_is_rejected_with_its_line_and_nothing_is_written() {
    let home = seeded();
    let before = home.memory_ok(&["export"]);
    let good = before
        .lines()
        .next()
        .unwrap()
        .replace("green tea", "black tea");
    let cases = [
        (
            "truncated.jsonl",
            format!("{good}\n{}\n", &good[..good.len() / 2]),
            "line 2: truncated JSON",
        ),
        (
            "schema.jsonl",
            format!("{good}\n{{\"id\": 1, \"name\": \"no content\"}}\n"),
            "line 2: not a memory entry",
        ),
        (
            "type.jsonl",
            format!(
                "{}\n",
                good.replace("\"memory_type\":\"user\"", "\"memory_type\":\"opinion\"")
            ),
            "line 1: not a memory entry: unknown variant `opinion`",
        ),
        (
            "garbage.jsonl",
            "\n\nnot json at all\n".to_owned(),
            "line 3: invalid JSON",
        ),
        (
            "empty-content.jsonl",
            format!(
                "{}\n",
                good.replace("Alice prefers black tea in the afternoon", " ")
            ),
            "line 1: the memory content is empty",
        ),
    ];
    for (name, text, message) in cases {
        let file = home.path(name);
        std::fs::write(&file, text).unwrap();
        home.memory(&["import", file.to_str().unwrap()])
            .assert()
            .code(3)
            .stderr(predicate::str::contains(format!("{name}: {message}")));
        assert_eq!(home.memory_ok(&["export"]), before, "{name} wrote data");
    }
    home.memory(&["import", home.path("missing.jsonl").to_str().unwrap()])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("missing.jsonl: no such file"));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    let home = Home::new();
    for sub in [
        "list", "search", "add", "delete", "clean", "stats", "export", "import",
    ] {
        home.agcore()
            .args(["memory", sub, "--help"])
            .assert()
            .success()
            .stdout(
                predicate::str::contains("Examples:")
                    .and(predicate::str::contains(format!("agcore memory {sub}"))),
            );
    }
    home.agcore()
        .args(["memory", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"));
}

#[test]
fn db_takes_storage_urls_and_names_the_supported_schemes() {
    let home = seeded();
    // A sqlite:// URL opens the same file as the bare path.
    let url = format!("sqlite://{}", home.db().display());
    let mut cmd = home.agcore();
    cmd.args(["memory", "stats", "--json", "--user", "alice", "--db", &url]);
    let out = cmd.assert().success().get_output().stdout.clone();
    let stats: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(stats["total_active"], 3, "{stats}");

    // The in-process backend has no file and reports none.
    let mut cmd = home.agcore();
    cmd.args(["memory", "stats", "--json", "--db", "memory://"]);
    let out = cmd.assert().success().get_output().stdout.clone();
    let stats: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(stats["backend"]["kind"], "memory");
    assert!(stats.get("database").is_none(), "{stats}");

    // An unknown scheme is a configuration error naming what is supported,
    // and a password in the URL is never echoed.
    let mut cmd = home.agcore();
    cmd.args(["memory", "list", "--db", "couch://u:secret@host/db"]);
    let out = cmd.assert().failure().get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("sqlite") && err.contains("postgres"), "{err}");
    assert!(!err.contains("secret"), "{err}");
}

/// SQLite → PostgreSQL: an export imported into an empty PostgreSQL schema
/// exports byte for byte the same JSONL (ids are reassigned 1..n in order).
#[test]
fn export_from_sqlite_imports_into_postgres_identically() {
    let Some(pg) = agcore_memory::testkit::service_url("AGCORE_TEST_POSTGRES_URL") else {
        return;
    };
    let sep = if pg.contains('?') { '&' } else { '?' };
    let url = format!("{pg}{sep}schema=agt_cli_move_{}", std::process::id());
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
}

/// SQLite → MySQL / MariaDB: an export imported into an empty database
/// exports byte for byte the same JSONL (ids are reassigned 1..n in order).
#[test]
fn export_from_sqlite_imports_into_mysql_identically() {
    use mysql_async::prelude::Queryable;
    let Some(base) = agcore_memory::testkit::service_url("AGCORE_TEST_MYSQL_URL") else {
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
