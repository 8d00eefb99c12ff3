//! End-to-end tests of `agcore eval` on hand-made LoCoMo and BEIR fixtures
//! (expected metrics computed by hand, see the comments). Bad input is in
//! `eval_bad_input.rs`.
#![cfg(test)]

use crate::eval_support;

use eval_support::{agcore, fixture};
use predicates::prelude::*;
use serde_json::Value;

fn eval_json(args: &[&str]) -> Value {
    let out = agcore()
        .arg("eval")
        .args(args)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn result<'a>(report: &'a Value, retriever: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["retriever"] == retriever)
        .unwrap_or_else(|| panic!("no result for {retriever}: {report}"))
}

fn category<'a>(r: &'a Value, label: &str) -> &'a Value {
    r["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no category {label}: {r}"))
}

fn assert_recall(scores: &Value, r5: f64, r10: f64, questions: u64) {
    assert_eq!(scores["questions"].as_u64(), Some(questions), "{scores}");
    assert_eq!(scores["recall_at_5"].as_f64(), Some(r5), "{scores}");
    assert_eq!(scores["recall_at_10"].as_f64(), Some(r10), "{scores}");
}

// LoCoMo fixture, `--format text` (turn text only), per question:
//   conv-a Q1 cat 4 "name of the puppy Alice adopted" → D1:1 (puppy, adopted): 1
//   conv-a Q2 cat 4 "Alice go hiking", evidence D1:3 + D9:9 (no such turn, dropped) → D1:3: 1
//   conv-a Q3 cat 1 "instrument Bob study" → D2:1 shares no term: 0
//   conv-a Q4 cat 2 "Bob start lessons", evidence "D2:1; D1:2" (split) → D2:1 only: 1/2
//   conv-a Q5 cat 4 evidence "D" (dropped) → skipped; Q6 cat 3 no evidence → skipped
//   conv-a Q7 cat 5 "Alice adopt a kitten", evidence D1:01 (= D1:1) → "adopt" matches
//          "adopted" through stemming (every retriever stems): 1
//   conv-b Q8 cat 4 "bread Carol bake" → D1:1: 1;  Q9 cat 1 "sourdough need" → D1:2: 1
// Categories 1–4: (1 + 1 + 0 + 0.5 + 1 + 1) / 6 = 0.75; every conversation has ≤ 5 turns,
// so recall@5 = recall@10.
#[test]
fn locomo_fixture_gives_hand_computed_recall_for_every_retriever() {
    let path = fixture("locomo_small.json");
    let report = eval_json(&[
        "--locomo",
        path.to_str().unwrap(),
        "--format",
        "text",
        "--retriever",
        "all",
    ]);
    assert_eq!(report["dataset"], "locomo");
    assert_eq!(report["documents"], 7);
    assert_eq!(report["namespaces"], 2);
    assert_eq!(report["questions_scored"], 7);
    assert_eq!(report["questions_skipped"], 2);
    assert_eq!(report["ids_dropped"], 2);
    assert_eq!(report["results"].as_array().unwrap().len(), 8);
    for name in [
        "lexical",
        "(lexical, no ctx field)",
        "(lexical, one store)",
        "text-overlap",
        "bm25",
        "contextual-bm25",
        "contextual-bm25-rm3",
    ] {
        let r = result(&report, name);
        assert_eq!(r["overall"]["label"], "1-4");
        assert_recall(&r["overall"], 0.75, 0.75, 6);
        assert_recall(category(r, "1"), 0.5, 0.5, 2);
        assert_recall(category(r, "2"), 0.5, 0.5, 1);
        assert_recall(category(r, "4"), 1.0, 1.0, 3);
        assert_recall(category(r, "5"), 1.0, 1.0, 1);
        // Q4: one of two relevant turns at rank 1 → nDCG = 1 / (1 + 1/log2 3).
        let ndcg = category(r, "2")["ndcg_at_10"].as_f64().unwrap();
        assert!(
            (ndcg - 1.0 / (1.0 + 1.0 / 3f64.log2())).abs() < 1e-12,
            "{ndcg}"
        );
        assert!(r["latency"]["p50_ms"].as_f64().unwrap() >= 0.0);
        assert!(
            r["latency"]["p99_ms"].as_f64().unwrap() >= r["latency"]["p50_ms"].as_f64().unwrap()
        );
    }
}

#[test]
fn locomo_fixture_on_sqlite_store() {
    let path = fixture("locomo_small.json");
    let report = eval_json(&[
        "--locomo",
        path.to_str().unwrap(),
        "--format",
        "text",
        "--store",
        "sqlite",
        "--retriever",
        "store",
    ]);
    assert_eq!(report["store"], "sqlite");
    let r = result(&report, "lexical");
    assert_recall(&r["overall"], 0.75, 0.75, 6);
    // Q7: "adopt" finds "adopted" in SQLite too (the stores share the analyzer).
    assert_recall(category(r, "5"), 1.0, 1.0, 1);
}

// With `--format speaker` the speaker name is indexed: Q3 "… does Bob study?" now finds
// D2:1 ("Bob: I started violin lessons.") and Q4 "When did Bob start lessons?" finds both
// D2:1 and D1:2 ("Bob: Congratulations! …"), so categories 1–4 reach 6/6.
#[test]
fn speaker_format_indexes_the_speaker() {
    let path = fixture("locomo_small.json");
    let report = eval_json(&[
        "--locomo",
        path.to_str().unwrap(),
        "--format",
        "speaker",
        "--retriever",
        "bm25",
    ]);
    let r = result(&report, "bm25");
    assert_recall(&r["overall"], 1.0, 1.0, 6);
    assert_eq!(report["format"], "speaker");
}

// BEIR fixture: q1 → d1, q2 → d3 (d4 has score 0), q3 → {d1, d2}, q5 → d4 (no shared
// term: 0); q4 has no qrels (skipped); rows for d99 and qx name nothing (dropped).
// Recall = nDCG = (1 + 1 + 1 + 0) / 4 = 0.75 for every retriever.
#[test]
fn beir_fixture_gives_hand_computed_metrics() {
    let dir = fixture("beir");
    let report = eval_json(&["--beir", dir.to_str().unwrap()]);
    assert_eq!(report["dataset"], "beir");
    assert_eq!(report["documents"], 4);
    assert_eq!(report["questions_scored"], 4);
    assert_eq!(report["questions_skipped"], 1);
    assert_eq!(report["ids_dropped"], 2);
    for r in report["results"].as_array().unwrap() {
        assert_eq!(r["overall"]["label"], "all");
        assert_recall(&r["overall"], 0.75, 0.75, 4);
        assert_eq!(r["overall"]["ndcg_at_10"].as_f64(), Some(0.75), "{r}");
    }
}

#[test]
fn table_output_names_every_retriever() {
    let path = fixture("locomo_small.json");
    agcore()
        .args(["eval", "--locomo", path.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("R@10"))
        .stdout(predicate::str::contains("contextual-bm25-rm3"))
        .stdout(predicate::str::contains("questions scored 7"));
}

// One store per conversation: BM25's statistics are the conversation's own.
// conv-a (4 one-turn sessions, so no context field): "kayak" in D1:1 only,
// "tent" in D2:1 and D3:1 (all three turns 3 terms long), so for "kayak tent"
// idf(kayak) > idf(tent) and D1:1 ranks first: nDCG@10 = 1. conv-b holds
// "kayak" in six turns; in one store of both, df(kayak) = 7 of 10 turns and
// df(tent) = 2, so the tent turns outrank D1:1, which falls to rank 3:
// nDCG@10 = 1 / log2(4) = 0.5.
#[test]
fn each_conversation_is_searched_with_its_own_statistics() {
    let path = fixture("locomo_namespaces.json");
    let report = eval_json(&[
        "--locomo",
        path.to_str().unwrap(),
        "--format",
        "text",
        "--retriever",
        "all",
    ]);
    let ndcg = |name: &str| category(result(&report, name), "1")["ndcg_at_10"].as_f64();
    assert_eq!(ndcg("lexical"), Some(1.0));
    assert_eq!(ndcg("contextual-bm25"), Some(1.0));
    assert_eq!(ndcg("(lexical, one store)"), Some(0.5));
}
