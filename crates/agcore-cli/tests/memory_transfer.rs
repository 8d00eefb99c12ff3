//! `agcore memory export` / `import` end to end: the JSONL round trip, every
//! field and scope surviving an import, and bad input, against a SQLite
//! database in a temporary home.
#![cfg(test)]

use crate::cli_support;

use cli_support::{Home, seeded};
use predicates::prelude::*;
use serde_json::Value;

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
