//! `agcore memory …` end to end: add, list, search, delete, clean, stats,
//! help and `--db` URLs, against a SQLite database in a temporary home. The
//! JSONL export/import is in `memory_transfer.rs`, moves between backends in
//! `memory_cross_backend.rs`.
#![cfg(test)]

use crate::cli_support;

use cli_support::{Home, seeded};
use predicates::prelude::*;
use serde_json::Value;

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

#[test]
fn every_subcommand_has_help_with_an_example() {
    let home = Home::new();
    for sub in [
        "list", "search", "add", "delete", "clean", "stats", "export", "import", "weight",
        "restore", "core", "archived",
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
