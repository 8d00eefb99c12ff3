//! `agcore memory` as a new user meets it: one-character Chinese search,
//! `stats` without `--user`, and the weight and archive administration
//! (`weight`, `restore`, `core`, `archived`, `search --archived`).
#![cfg(test)]

use crate::cli_support;

use cli_support::{Home, seeded};
use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn one_chinese_character_finds_the_memory() {
    let home = Home::new();
    home.memory_ok(&["add", "我最喜欢的茶是龙井"]);
    home.memory_ok(&["add", "周末去公园散步"]);
    for query in ["茶", "龙井", "喜欢的茶"] {
        let hits = json(&home.memory_ok(&["search", query, "--json"]));
        let hits = hits.as_array().unwrap();
        assert_eq!(hits.len(), 1, "{query}: {hits:?}");
        assert_eq!(hits[0]["entry"]["content"], "我最喜欢的茶是龙井", "{query}");
    }
    let table = home.memory_ok(&["search", "茶"]);
    assert!(table.contains("SCORE") && table.contains("龙井"), "{table}");
    let none = home.memory_ok(&["search", "猫"]);
    assert!(none.contains("no memories"), "{none}");
}

#[test]
fn stats_without_user_shows_every_scope() {
    let home = seeded();
    let mut bob = home.agcore();
    bob.args(["memory", "add", "Bob likes coffee", "--user", "bob", "--db"])
        .arg(home.db());
    bob.assert().success();

    let mut all = home.agcore();
    all.args(["memory", "stats", "--db"]).arg(home.db());
    let text = String::from_utf8(all.assert().success().get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("alice") && text.contains("bob"),
        "every scope listed: {text}"
    );
    assert!(
        text.contains("total: 4 active, 0 archived in 2 scopes"),
        "{text}"
    );

    // With --user, the one scope, and the others named as a count.
    let one = home.memory_ok(&["stats"]);
    assert!(
        one.contains("total: 3 active, 0 archived in 1 scope"),
        "{one}"
    );
    assert!(
        one.contains("1 other scope") && one.contains("--all-scopes"),
        "{one}"
    );
    assert!(!one.contains("bob"), "{one}");
}

#[test]
fn weight_core_archive_and_restore() {
    let home = seeded();
    let entries = home.entries();
    let tea = entries[0]["id"].as_i64().unwrap().to_string();
    let refactor = entries[2]["id"].as_i64().unwrap().to_string();

    assert!(home.memory_ok(&["core"]).contains("no core memories"));
    let set = json(&home.memory_ok(&["weight", &tea, "3.5", "--json"]));
    assert_eq!(set["weight"], 3.5);
    assert!(home.memory_ok(&["weight", &tea, "3.5"]).contains("(core)"));
    let core = json(&home.memory_ok(&["core", "--json"]));
    let core = core.as_array().unwrap();
    assert_eq!(core.len(), 1);
    assert_eq!(
        core[0]["content"],
        "Alice prefers green tea in the afternoon"
    );

    // Out of range and unknown ids are refused.
    home.memory(&["weight", &tea, "99"]).assert().code(3);
    home.memory(&["weight", &tea, "-1"]).assert().code(3);
    home.memory(&["weight", "9999", "1.0"]).assert().code(4);
    home.memory(&["restore", "9999"]).assert().code(4);

    // Archived memories: listed, found only on request, restored.
    home.memory_ok(&["clean", "--below-weight", "0.5"]);
    let archived = json(&home.memory_ok(&["archived", "--json"]));
    assert_eq!(archived.as_array().unwrap().len(), 1);
    assert_eq!(archived[0]["id"].as_i64().unwrap().to_string(), refactor);
    let hidden = json(&home.memory_ok(&["search", "payment refactor", "--json"]));
    assert_eq!(hidden.as_array().unwrap().len(), 0);
    let found = json(&home.memory_ok(&["search", "payment refactor", "--archived", "--json"]));
    assert_eq!(
        found[0]["entry"]["id"].as_i64().unwrap().to_string(),
        refactor
    );

    assert!(home.memory_ok(&["restore", &refactor]).contains("restored"));
    assert!(
        home.memory_ok(&["archived"])
            .contains("no archived memories")
    );
    let back = json(&home.memory_ok(&["search", "payment refactor", "--json"]));
    assert_eq!(back.as_array().unwrap().len(), 1);
}
