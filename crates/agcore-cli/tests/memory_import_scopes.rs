//! `agcore memory import` of a file holding several users' memories: refused
//! unless `--all-scopes` or `--into-scope` says what to do, so no import
//! merges users by accident.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use predicates::prelude::*;
use serde_json::Value;

/// `agcore memory <args> --db <db> --user <user>`, expecting success.
fn as_user(home: &Home, db: &std::path::Path, user: &str, args: &[&str]) -> String {
    let mut cmd = home.agcore();
    cmd.arg("memory")
        .args(args)
        .arg("--db")
        .arg(db)
        .args(["--user", user]);
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// The contents stored for `user` in `db`.
fn contents(home: &Home, db: &std::path::Path, user: &str) -> Vec<String> {
    let text = as_user(home, db, user, &["list", "--json", "--archived"]);
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut out: Vec<String> = entries
        .iter()
        .map(|e| e["content"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

/// An `--all-scopes` export of users u1, u2 and u3.
fn three_users(home: &Home) -> std::path::PathBuf {
    let source = home.path("source.db");
    for (user, text) in [
        ("u1", "u1 keeps bees"),
        ("u2", "u2 is allergic to nuts"),
        ("u3", "u3 用户住在上海"),
    ] {
        as_user(home, &source, user, &["add", text]);
    }
    let file = home.path("all.jsonl");
    as_user(
        home,
        &source,
        "u1",
        &["export", "--all-scopes", file.to_str().unwrap()],
    );
    file
}

#[test]
fn a_file_of_several_scopes_is_refused_without_a_flag() {
    let home = Home::new();
    let file = three_users(&home);
    home.memory(&["import", file.to_str().unwrap()])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "the file holds memories of 3 scopes (assistant/u1, assistant/u2, assistant/u3)",
        ))
        .stderr(predicate::str::contains("--all-scopes"))
        .stderr(predicate::str::contains("--into-scope AGENT/USER"));
    assert!(home.entries().is_empty(), "a refused import wrote memories");
}

#[test]
fn all_scopes_keeps_each_user_and_into_scope_merges_on_purpose() {
    let home = Home::new();
    let file = three_users(&home);
    let msg = home.memory_ok(&["import", file.to_str().unwrap(), "--all-scopes"]);
    assert!(
        msg.contains("imported 3 memories into their own scopes"),
        "{msg}"
    );
    let db = home.db();
    assert_eq!(contents(&home, &db, "u1"), ["u1 keeps bees"]);
    assert_eq!(contents(&home, &db, "u3"), ["u3 用户住在上海"]);
    assert!(home.entries().is_empty(), "alice got other users' memories");

    let msg = home.memory_ok(&[
        "import",
        file.to_str().unwrap(),
        "--into-scope",
        "archive/everyone",
    ]);
    assert!(
        msg.contains("imported 3 memories into archive/everyone"),
        "{msg}"
    );
    let mut list = home.agcore();
    list.args([
        "memory", "list", "--json", "--agent", "archive", "--user", "everyone", "--db",
    ])
    .arg(&db);
    let text = String::from_utf8(list.assert().success().get_output().stdout.clone()).unwrap();
    let merged: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(merged.len(), 3);

    // One scope, not alice's: imported into alice's scope as before.
    let one = home.path("one.jsonl");
    let line = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    std::fs::write(&one, format!("{line}\n")).unwrap();
    let msg = home.memory_ok(&["import", one.to_str().unwrap()]);
    assert!(
        msg.contains("imported 1 memories into assistant/alice"),
        "{msg}"
    );

    // The two flags exclude each other.
    home.memory(&[
        "import",
        file.to_str().unwrap(),
        "--all-scopes",
        "--into-scope",
        "a/b",
    ])
    .assert()
    .code(2);
}
