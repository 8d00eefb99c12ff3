//! Invalid `--agent`, `--user` and `$USER` values are refused up front with
//! a message naming the flag and the fault (exit 2), before any database is
//! opened.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use predicates::prelude::*;

#[test]
fn hostile_scope_ids_are_configuration_errors() {
    let home = Home::new();
    let db = home.db();
    let db = db.to_str().unwrap();
    for (args, message) in [
        (
            vec!["--user", "alice\u{200b}"],
            "invalid memory scope (--agent, --user): user id \"alice\\u{200b}\" contains the invisible format character U+200B",
        ),
        (
            vec!["--user", " alice"],
            "has leading or trailing whitespace",
        ),
        (
            vec!["--agent", "team/assistant", "--user", "alice"],
            "agent name \"team/assistant\" contains the reserved separator `/`",
        ),
    ] {
        home.agcore()
            .args(["memory", "list", "--db", db])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    home.agcore()
        .env("USER", "tester\u{202e}")
        .args(["memory", "list", "--db", db])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("(--agent, $USER)"));
    assert!(
        !home.db().exists(),
        "no database is created for a refused scope"
    );
}
