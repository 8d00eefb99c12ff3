//! `agcore demo`: the zero-configuration tour, on a folder of notes made by the test.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use predicates::prelude::*;

fn notes(home: &Home) -> std::path::PathBuf {
    let dir = home.path("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("garden.md"),
        "# Garden\n\n## Tomatoes\nWater the tomatoes every morning in July.\n\n## Roses\nPrune the roses in early spring.\n",
    )
    .unwrap();
    std::fs::write(dir.join("茶.md"), "# 茶\n\n## 绿茶\n龙井是杭州的绿茶。\n").unwrap();
    dir
}

#[test]
fn demo_ingests_answers_queries_and_shows_long_term_memory() {
    let home = Home::new();
    let dir = notes(&home);
    let out = home
        .agcore()
        .args(["demo", "--docs"])
        .arg(&dir)
        .args(["--limit", "1", "when to prune roses", "杭州绿茶"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("read 2 files"), "{out}");
    assert!(out.contains("5 sections"), "{out}");
    // Each query's single best page is the section that answers it.
    let roses = out.split("? when to prune roses").nth(1).unwrap();
    assert!(
        roses.lines().nth(1).unwrap().contains("Garden › Roses"),
        "{out}"
    );
    let tea = out.split("? 杭州绿茶").nth(1).unwrap();
    assert!(tea.lines().nth(1).unwrap().contains("绿茶"), "{out}");
    // Session 2's system prompt carried session 1's memory; the other user saw none.
    assert!(out.contains("<memory-context>"), "{out}");
    assert!(
        out.contains("Alice prefers short answers in bullet points"),
        "{out}"
    );
    assert!(
        out.contains("bob searches `bullet points`: 0 hits"),
        "{out}"
    );
}

#[test]
fn demo_keeps_the_wiki_when_asked() {
    let home = Home::new();
    let dir = notes(&home);
    let db = home.path("kept.db");
    home.agcore()
        .args(["demo", "--docs"])
        .arg(&dir)
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("wiki kept in"));
    home.agcore()
        .args(["wiki", "search", "tomatoes", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("Tomatoes"));
}

#[test]
fn demo_rejects_a_missing_or_empty_folder() {
    let home = Home::new();
    home.agcore()
        .args(["demo", "--docs"])
        .arg(home.path("nope"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("not a folder"));
    let empty = home.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    home.agcore()
        .args(["demo", "--docs"])
        .arg(&empty)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("no Markdown or text file found"));
}
