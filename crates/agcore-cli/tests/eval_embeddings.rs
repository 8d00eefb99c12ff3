//! `agcore eval` with embedders: the product's dense and hybrid paths on the
//! Chinese / cross-language fixture against the real multilingual-e5 server,
//! hashing on LoCoMo-shaped fixtures offline, and the recall plot.
#![cfg(test)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn eval_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("agcore")
        .unwrap()
        .arg("eval")
        .args(args)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn group<'a>(report: &'a Value, retriever: &str, label: &str) -> &'a Value {
    let r = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["retriever"] == retriever)
        .unwrap_or_else(|| panic!("no {retriever}: {report}"));
    if r["overall"]["label"] == label {
        return &r["overall"];
    }
    r["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no group {label} in {r}"))
}

fn e5() -> Option<String> {
    let url = agcore_memory_testkit::service_url("AGCORE_TEST_E5_BASE_URL")?;
    let model = std::env::var("AGCORE_TEST_E5_MODEL").unwrap_or_default();
    Some(format!("openai:{url}:{model}"))
}

/// Chinese memories, found by Chinese paraphrases and by English questions:
/// words alone find none of the English ones; the multilingual model does.
#[test]
fn chinese_memories_are_recalled_across_languages() {
    let Some(embedder) = e5() else { return };
    let dir = fixture("zh-memories");
    let report = eval_json(&[
        "--beir",
        dir.to_str().unwrap(),
        "--retriever",
        "all",
        "--embedder",
        &embedder,
        "--query-style",
        "input-type",
    ]);
    assert_eq!(report["documents"], 40);
    assert_eq!(group(&report, "lexical", "en")["recall_at_10"], 0.0);
    for retriever in ["dense", "hybrid"] {
        for lang in ["en", "zh"] {
            let r10 = group(&report, retriever, lang)["recall_at_10"]
                .as_f64()
                .unwrap();
            assert!(r10 >= 0.9, "{retriever} {lang} R@10 {r10}: {report}");
        }
    }
    let lexical = group(&report, "lexical", "all")["recall_at_10"]
        .as_f64()
        .unwrap();
    let hybrid = group(&report, "hybrid", "all")["recall_at_10"]
        .as_f64()
        .unwrap();
    assert!(
        hybrid > lexical + 0.5,
        "hybrid {hybrid} vs lexical {lexical}"
    );
    let split = &report["results"][0]["embed_latency"];
    assert!(split["p50_ms"].as_f64().unwrap() > 0.0, "{report}");
}

/// Offline: hashing vectors, every product row present, the plot drawn with
/// one curve per retriever.
#[test]
fn hashing_embedder_rows_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("recall.svg");
    let data = fixture("zh-memories");
    let report = eval_json(&[
        "--beir",
        data.to_str().unwrap(),
        "--embedder",
        "hashing:256",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let names: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["retriever"].as_str().unwrap())
        .collect();
    for name in ["hybrid", "dense", "lexical", "contextual-bm25"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let curve = group(&report, "hybrid", "all")["recall_curve"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(curve.len(), 50);
    let values: Vec<f64> = curve.iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(
        values.windows(2).all(|w| w[0] <= w[1] + 1e-12),
        "recall@k grows with k"
    );
    for r in report["results"].as_array().unwrap() {
        let has = !r["fusion_ceiling"].is_null();
        assert_eq!(has, r["retriever"] == "hybrid", "fusion ceiling of {r}");
    }
    let ceiling = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["retriever"] == "hybrid")
        .map(|r| r["fusion_ceiling"].clone())
        .unwrap();
    let figure = |name: &str| ceiling[name].as_f64().unwrap();
    assert_eq!(ceiling["questions"], 40, "{ceiling}");
    let union = figure("union_recall_at_10");
    assert!(union >= figure("lexical_recall_at_10") && union >= figure("dense_recall_at_10"));
    // The product's equal weight is one of the weights tried.
    let hybrid = group(&report, "hybrid", "all");
    assert!(figure("best_weight_recall_at_10") >= hybrid["recall_at_10"].as_f64().unwrap());
    assert!(figure("best_weight_ndcg_at_10") >= hybrid["ndcg_at_10"].as_f64().unwrap());
    assert!(figure("best_weight_recall_at_10") <= 1.0);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    for name in &names {
        assert!(text.contains(name), "{name} in the legend");
    }
}

#[test]
fn dense_without_an_embedder_is_a_configuration_error() {
    let data = fixture("zh-memories");
    Command::cargo_bin("agcore")
        .unwrap()
        .args([
            "eval",
            "--beir",
            data.to_str().unwrap(),
            "--retriever",
            "dense",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("needs --embedder"));
    Command::cargo_bin("agcore")
        .unwrap()
        .args([
            "eval",
            "--beir",
            data.to_str().unwrap(),
            "--embedder",
            "bert",
        ])
        .assert()
        .code(2);
}
