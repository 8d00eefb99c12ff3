//! Compares the two keyword overlaps of `simple` store re-scoring, Jaccard
//! and LCS (`lexical_measure`), on the Chinese memory set of the CLI's
//! tests (`crates/agcore-cli/tests/fixtures/zh-memories`, BEIR layout): each
//! query ranks the 40 memories by the measure alone; MRR and recall@1 over
//! the Chinese queries, and the time of one scoring.
//!
//! `cargo run -p agcore-agent --release --example rescoring_eval [FOLDER]`
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use agcore_agent::attach::LexicalMeasure;

fn lines(path: &PathBuf) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text(value: &serde_json::Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

fn main() {
    let folder = std::env::args().nth(1).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../agcore-cli/tests/fixtures/zh-memories")
        },
        PathBuf::from,
    );
    let corpus: Vec<(String, String)> = lines(&folder.join("corpus.jsonl"))
        .iter()
        .map(|d| (text(d, "_id"), text(d, "text")))
        .collect();
    let queries: Vec<(String, String)> = lines(&folder.join("queries.jsonl"))
        .iter()
        .filter(|q| q["metadata"]["category"] != "en")
        .map(|q| (text(q, "_id"), text(q, "text")))
        .collect();
    let qrels: HashMap<String, String> = std::fs::read_to_string(folder.join("qrels/test.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut parts = l.split('\t');
            Some((parts.next()?.to_owned(), parts.next()?.to_owned()))
        })
        .collect();
    println!("{} queries, {} memories", queries.len(), corpus.len());
    let mut results = Vec::new();
    for (name, measure) in [
        ("jaccard", LexicalMeasure::Jaccard),
        ("lcs", LexicalMeasure::Lcs),
    ] {
        let (mut mrr, mut at1) = (0.0, 0.0);
        let started = Instant::now();
        let mut scorings = 0u32;
        for (id, query) in &queries {
            let mut ranked: Vec<(&str, f64)> = corpus
                .iter()
                .map(|(doc, body)| (doc.as_str(), measure.score(query, body)))
                .collect();
            scorings += u32::try_from(ranked.len()).unwrap();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
            let relevant = qrels.get(id).map(String::as_str);
            if let Some(rank) = ranked.iter().position(|(d, _)| Some(*d) == relevant) {
                mrr += 1.0 / (rank as f64 + 1.0);
                if rank == 0 {
                    at1 += 1.0;
                }
            }
        }
        let per = started.elapsed().as_secs_f64() * 1e6 / f64::from(scorings);
        let n = queries.len() as f64;
        println!(
            "{name:8} MRR {:.3}  recall@1 {:.3}  {per:.2} µs per scoring",
            mrr / n,
            at1 / n
        );
        results.push((mrr / n, per));
    }
    if let [(j_mrr, j_time), (l_mrr, l_time)] = results[..] {
        println!(
            "lcs / jaccard: MRR {:.3}, time {:.2}",
            l_mrr / j_mrr.max(f64::EPSILON),
            l_time / j_time.max(f64::EPSILON)
        );
    }
}
