//! `agcore eval` on bad input: truncated, invalid or mis-shaped LoCoMo JSON
//! and BEIR files, missing files and folders (exit 3), and conflicting
//! options (exit 2).
#![cfg(test)]

use crate::eval_support;

use std::path::{Path, PathBuf};

use eval_support::{agcore, fixture};
use predicates::prelude::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn fails_with(args: &[&str], code: i32, message: &str) {
    agcore()
        .arg("eval")
        .args(args)
        .assert()
        .failure()
        .code(code)
        .stderr(predicate::str::contains(message));
}

#[test]
fn truncated_locomo_json_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(fixture("locomo_small.json")).unwrap();
    let cut = &full[..full.len() / 2];
    let path = write(tmp.path(), "cut.json", cut);
    fails_with(&["--locomo", path.to_str().unwrap()], 3, "truncated JSON");
}

#[test]
fn invalid_locomo_json_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "bad.json", "[{\"sample_id\": }]");
    fails_with(&["--locomo", path.to_str().unwrap()], 3, "invalid JSON");
}

#[test]
fn locomo_wrong_schema_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "obj.json", r#"{"conversation": {}}"#);
    fails_with(&["--locomo", path.to_str().unwrap()], 3, "wrong schema");
}

#[test]
fn locomo_missing_field_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(
        tmp.path(),
        "noqa.json",
        r#"[{"sample_id": "s", "conversation": {}}]"#,
    );
    fails_with(
        &["--locomo", path.to_str().unwrap()],
        3,
        "missing field `qa`",
    );
    let turn = r#"[{"sample_id": "s", "qa": [], "conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1"}]}}]"#;
    let path = write(tmp.path(), "notext.json", turn);
    fails_with(
        &["--locomo", path.to_str().unwrap()],
        3,
        "missing field `text`",
    );
}

#[test]
fn locomo_empty_corpus_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "empty.json", "[]");
    fails_with(
        &["--locomo", path.to_str().unwrap()],
        3,
        "the corpus is empty",
    );
    let no_turns = r#"[{"sample_id": "s", "qa": [], "conversation": {"session_1": []}}]"#;
    let path = write(tmp.path(), "noturns.json", no_turns);
    fails_with(
        &["--locomo", path.to_str().unwrap()],
        3,
        "the corpus is empty",
    );
}

#[test]
fn locomo_without_scorable_questions_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"[{"sample_id": "s", "conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi there"}]},
        "qa": [{"question": "q?", "evidence": ["D7:7"], "category": 4}]}]"#;
    let path = write(tmp.path(), "noev.json", text);
    fails_with(
        &["--locomo", path.to_str().unwrap()],
        3,
        "no question has evidence",
    );
}

#[test]
fn missing_locomo_file_exits_3() {
    fails_with(&["--locomo", "/nonexistent/locomo.json"], 3, "cannot read");
}

fn beir_copy(tmp: &Path) -> PathBuf {
    let dir = tmp.join("beir");
    for name in ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"] {
        let text = std::fs::read_to_string(fixture("beir").join(name)).unwrap();
        write(&dir, name, &text);
    }
    dir
}

#[test]
fn beir_missing_qrels_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = beir_copy(tmp.path());
    std::fs::remove_file(dir.join("qrels/test.tsv")).unwrap();
    fails_with(&["--beir", dir.to_str().unwrap()], 3, "qrels");
}

#[test]
fn beir_empty_corpus_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = beir_copy(tmp.path());
    write(&dir, "corpus.jsonl", "\n");
    fails_with(&["--beir", dir.to_str().unwrap()], 3, "the corpus is empty");
}

#[test]
fn beir_truncated_line_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = beir_copy(tmp.path());
    write(
        &dir,
        "corpus.jsonl",
        "{\"_id\": \"d1\", \"text\": \"ok\"}\n{\"_id\": \"d2\", \"te",
    );
    fails_with(
        &["--beir", dir.to_str().unwrap()],
        3,
        "line 2: truncated JSON",
    );
}

#[test]
fn beir_missing_field_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = beir_copy(tmp.path());
    write(&dir, "queries.jsonl", "{\"text\": \"no id\"}\n");
    fails_with(&["--beir", dir.to_str().unwrap()], 3, "missing field `_id`");
}

#[test]
fn beir_malformed_qrels_row_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = beir_copy(tmp.path());
    write(
        &dir,
        "qrels/test.tsv",
        "query-id\tcorpus-id\tscore\nq1 d1\n",
    );
    fails_with(&["--beir", dir.to_str().unwrap()], 3, "line 2");
}

#[test]
fn beir_missing_folder_exits_3() {
    fails_with(&["--beir", "/nonexistent/beir"], 3, "not a folder");
}

#[test]
fn locomo_and_beir_together_are_a_usage_error() {
    let path = fixture("locomo_small.json");
    let dir = fixture("beir");
    agcore()
        .args([
            "eval",
            "--locomo",
            path.to_str().unwrap(),
            "--beir",
            dir.to_str().unwrap(),
        ])
        .assert()
        .failure()
        .code(2);
    agcore().args(["eval"]).assert().failure().code(2);
}
