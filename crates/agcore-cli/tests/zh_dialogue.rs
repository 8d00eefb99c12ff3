//! The Chinese dialogue set (`data/zh-dialogue.json` and its English-question
//! twin): both files are well formed, and the product's lexical path keeps
//! its measured recall on Chinese text. No server needed.
#![cfg(test)]

use crate::eval_support;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use eval_support::agcore;
use serde_json::Value;

/// R@10 of the `lexical` row (categories 1–4, `--format full`, in-memory
/// store) measured when the set was added (0.533), less 0.05: a regression
/// floor for Chinese text, not a target.
const LEXICAL_R10_FLOOR: f64 = 0.483;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

fn read(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(data(name)).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The dia_ids of a sample's turns, checking that each session's turns are
/// numbered `D<session>:1…` in order and spoken by one of the two speakers.
fn turn_ids(sample: &Value) -> HashSet<String> {
    let conversation = sample["conversation"].as_object().unwrap();
    let speakers = [&conversation["speaker_a"], &conversation["speaker_b"]];
    let mut ids = HashSet::new();
    for (key, turns) in conversation {
        let Some(n) = key
            .strip_prefix("session_")
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let date = conversation[&format!("session_{n}_date_time")]
            .as_str()
            .unwrap();
        assert!(
            chrono::NaiveDateTime::parse_from_str(date, "%I:%M %p on %d %B, %Y").is_ok(),
            "{key}: date `{date}`"
        );
        for (i, turn) in turns.as_array().unwrap().iter().enumerate() {
            assert_eq!(turn["dia_id"], format!("D{n}:{}", i + 1), "{turn}");
            assert!(speakers.contains(&&turn["speaker"]), "{turn}");
            assert!(!turn["text"].as_str().unwrap().trim().is_empty(), "{turn}");
            ids.insert(turn["dia_id"].as_str().unwrap().to_owned());
        }
    }
    ids
}

#[test]
fn chinese_dialogue_files_are_well_formed() {
    let zh = read("zh-dialogue.json");
    let en = read("zh-dialogue-en-questions.json");
    assert_eq!(zh.len(), 3);
    assert_eq!(en.len(), zh.len());
    let mut turns = 0;
    let mut categories = BTreeMap::new();
    for (z, e) in zh.iter().zip(&en) {
        assert_eq!(z["sample_id"], e["sample_id"]);
        assert_eq!(z["conversation"], e["conversation"], "{}", z["sample_id"]);
        let ids = turn_ids(z);
        turns += ids.len();
        let (zq, eq) = (z["qa"].as_array().unwrap(), e["qa"].as_array().unwrap());
        assert_eq!(zq.len(), eq.len(), "{}", z["sample_id"]);
        for (a, b) in zq.iter().zip(eq) {
            let evidence = a["evidence"].as_array().unwrap();
            assert!(!evidence.is_empty(), "{a}");
            for id in evidence {
                assert!(ids.contains(id.as_str().unwrap()), "{id} in {a}");
            }
            let category = a["category"].as_u64().unwrap();
            assert!((1..=4).contains(&category), "{a}");
            if category == 1 {
                assert!(evidence.len() >= 2, "multi-hop with one turn: {a}");
            }
            assert_eq!(a["evidence"], b["evidence"], "{b}");
            assert_eq!(a["category"], b["category"], "{b}");
            assert!(
                a["question"]
                    .as_str()
                    .unwrap()
                    .chars()
                    .any(|c| c > '\u{2e7f}'),
                "not Chinese: {a}"
            );
            assert!(
                b["question"].as_str().unwrap().is_ascii(),
                "not English: {b}"
            );
            *categories.entry(category).or_insert(0) += 1;
        }
    }
    assert_eq!(turns, 268);
    assert_eq!(
        categories,
        BTreeMap::from([(1, 18), (2, 18), (3, 11), (4, 33)])
    );
}

#[test]
fn chinese_dialogue_lexical_recall_stays_above_floor() {
    let path = data("zh-dialogue.json");
    let out = agcore()
        .args(["eval", "--locomo"])
        .arg(&path)
        .args(["--retriever", "lexical", "--format", "full", "--json"])
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report["documents"], 268);
    assert_eq!(report["questions_scored"], 80);
    assert_eq!(report["ids_dropped"], 0);
    let lexical = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["retriever"] == "lexical")
        .unwrap_or_else(|| panic!("no lexical row: {report}"));
    assert_eq!(lexical["overall"]["label"], "1-4");
    let r10 = lexical["overall"]["recall_at_10"].as_f64().unwrap();
    assert!(
        r10 >= LEXICAL_R10_FLOOR,
        "lexical R@10 on the Chinese dialogue set fell to {r10:.3} (floor {LEXICAL_R10_FLOOR}): {lexical}"
    );
}
