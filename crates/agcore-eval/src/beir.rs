//! The BEIR loader: a folder with `corpus.jsonl` (`{_id, title, text}`),
//! `queries.jsonl` (`{_id, text}`) and `qrels/test.tsv` (`query-id corpus-id
//! score`, tab-separated, with a header), searched as one namespace.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::dataset::{Dataset, Doc, Namespace, Query};
use super::json_error;
use crate::EvalError;

#[derive(Deserialize)]
struct CorpusLine {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    title: String,
    text: String,
}

#[derive(Deserialize)]
struct QueryLine {
    #[serde(rename = "_id")]
    id: String,
    text: String,
    /// Optional group the query is reported in (e.g. its language); BEIR's
    /// own files have none, and then every query is in `all`.
    #[serde(default)]
    metadata: Option<QueryMetadata>,
}

#[derive(Deserialize)]
struct QueryMetadata {
    #[serde(default)]
    category: Option<String>,
}

/// Reads a BEIR folder. Qrels rows with score ≤ 0 are not relevant; rows
/// naming an unknown query or document are dropped (counted); queries without
/// a relevant document are skipped (counted).
///
/// # Errors
/// [`EvalError::Input`] for a missing file, a truncated or invalid JSON line,
/// a line missing `_id`/`text`, a malformed qrels row, an empty corpus, or no
/// query with relevant documents.
pub fn load(dir: &Path) -> Result<Dataset, EvalError> {
    if !dir.is_dir() {
        return Err(EvalError::input(
            dir,
            "not a folder (expected corpus.jsonl, queries.jsonl, qrels/test.tsv)",
        ));
    }
    let corpus: Vec<CorpusLine> = read_jsonl(&dir.join("corpus.jsonl"), "`{_id, title, text}`")?;
    if corpus.is_empty() {
        return Err(EvalError::input(
            dir.join("corpus.jsonl"),
            "the corpus is empty: no documents",
        ));
    }
    let queries: Vec<QueryLine> = read_jsonl(&dir.join("queries.jsonl"), "`{_id, text}`")?;
    let qrels_path = dir.join("qrels").join("test.tsv");
    let (mut relevant, dropped_ids) = read_qrels(&qrels_path, &corpus, &queries)?;
    let mut skipped_queries = 0;
    let mut scored = Vec::new();
    for q in queries {
        match relevant.remove(&q.id) {
            Some(rel) => scored.push(Query {
                text: q.text,
                relevant: rel,
                category: q
                    .metadata
                    .as_ref()
                    .and_then(|m| m.category.clone())
                    .unwrap_or_else(|| "all".into()),
            }),
            None => skipped_queries += 1,
        }
    }
    if scored.is_empty() {
        return Err(EvalError::input(
            &qrels_path,
            "no query has a relevant document in the qrels",
        ));
    }
    Ok(Dataset {
        kind: "beir",
        namespaces: vec![Namespace {
            name: "beir".into(),
            docs: corpus.into_iter().enumerate().map(to_doc).collect(),
            queries: scored,
        }],
        sequential: false,
        dropped_ids,
        skipped_queries,
    })
}

/// The relevant documents of each query (score > 0) in the qrels file at
/// `path`, and how many rows named an unknown query or document (dropped).
///
/// # Errors
/// [`EvalError::Input`] for an unreadable file or a malformed row.
fn read_qrels(
    path: &Path,
    corpus: &[CorpusLine],
    queries: &[QueryLine],
) -> Result<(HashMap<String, HashSet<String>>, usize), EvalError> {
    let qrels = std::fs::read_to_string(path).map_err(|e| {
        EvalError::input(
            path,
            format!("cannot read the relevance judgements (qrels): {e}"),
        )
    })?;
    let docs_known: HashSet<&str> = corpus.iter().map(|d| d.id.as_str()).collect();
    let queries_known: HashSet<&str> = queries.iter().map(|q| q.id.as_str()).collect();
    let mut relevant: HashMap<String, HashSet<String>> = HashMap::new();
    let mut dropped_ids = 0;
    for (n, line) in qrels.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || (n == 0 && line.starts_with("query-id")) {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [query, doc, score] = cols.as_slice() else {
            return Err(EvalError::input(
                path,
                format!(
                    "line {}: expected `query-id<TAB>corpus-id<TAB>score`",
                    n + 1
                ),
            ));
        };
        let score: f64 = score.trim().parse().map_err(|_| {
            EvalError::input(
                path,
                format!("line {}: score `{score}` is not a number", n + 1),
            )
        })?;
        if !queries_known.contains(query) || !docs_known.contains(doc) {
            dropped_ids += 1;
            continue;
        }
        if score > 0.0 {
            relevant
                .entry((*query).to_owned())
                .or_default()
                .insert((*doc).to_owned());
        }
    }
    Ok((relevant, dropped_ids))
}

/// The `i`-th corpus document as searched: its title above its text, and
/// one second later than the one before.
fn to_doc((i, d): (usize, CorpusLine)) -> Doc {
    Doc {
        content: if d.title.trim().is_empty() {
            d.text
        } else {
            format!("{}\n{}", d.title, d.text)
        },
        metadata: json!({ "title": d.title }),
        created_at: DateTime::<Utc>::UNIX_EPOCH + TimeDelta::seconds(i64::try_from(i).unwrap_or(0)),
        id: d.id,
    }
}

/// One JSON object per non-blank line.
fn read_jsonl<T: DeserializeOwned>(path: &Path, shape: &str) -> Result<Vec<T>, EvalError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EvalError::input(path, format!("cannot read: {e}")))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str(line).map_err(|e| {
            let EvalError::Input { message, .. } = json_error(path, shape, &e) else {
                return json_error(path, shape, &e);
            };
            EvalError::input(path, format!("line {}: {message}", n + 1))
        })?;
        out.push(value);
    }
    Ok(out)
}
