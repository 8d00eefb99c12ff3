//! The LoCoMo loader (snap-research/LoCoMo `locomo10.json` format): one
//! namespace per conversation, one document per turn, one query per question.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::dataset::{Dataset, Doc, Namespace, Query};
use super::json_error;
use crate::EvalError;

/// How a conversation turn is rendered into a memory's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum TurnFormat {
    /// The turn text only.
    Text,
    /// `speaker: text`.
    Speaker,
    /// `[session date] speaker: text [image: caption]`.
    Full,
}

#[derive(Deserialize)]
struct Sample {
    sample_id: String,
    conversation: Map<String, Value>,
    qa: Vec<Qa>,
}

#[derive(Deserialize)]
struct Qa {
    question: String,
    #[serde(default)]
    evidence: Vec<String>,
    category: u32,
}

#[derive(Deserialize)]
struct Turn {
    speaker: String,
    dia_id: String,
    text: String,
    #[serde(default)]
    blip_caption: Option<String>,
}

/// Reads a LoCoMo file and renders its turns with `format`.
///
/// Label noise is repaired as the data's README says: evidence strings
/// holding several ids are split, ids such as `D:11:26` or `D30:05` are
/// normalised, ids matching no turn are dropped (counted), and questions left
/// without evidence are skipped (counted).
///
/// # Errors
/// [`EvalError::Input`] for an unreadable file, truncated or invalid JSON, a
/// wrong shape (with the offending sample and field), no turns, or no
/// question with evidence.
pub fn load(path: &Path, format: TurnFormat) -> Result<Dataset, EvalError> {
    let bytes =
        std::fs::read(path).map_err(|e| EvalError::input(path, format!("cannot read: {e}")))?;
    let samples: Vec<Sample> = serde_json::from_slice(&bytes)
        .map_err(|e| json_error(path, "a LoCoMo list of samples", &e))?;
    let mut dataset = Dataset {
        kind: "locomo",
        namespaces: Vec::new(),
        sequential: true,
        dropped_ids: 0,
        skipped_queries: 0,
    };
    for sample in samples {
        let docs = turns(path, &sample, format)?;
        let known: HashSet<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        let mut queries = Vec::new();
        for qa in &sample.qa {
            let mut relevant = HashSet::new();
            for id in qa.evidence.iter().flat_map(|e| split_evidence(e)) {
                match normalise_dia_id(id) {
                    Some(id) if known.contains(id.as_str()) => {
                        relevant.insert(id);
                    }
                    _ => dataset.dropped_ids += 1,
                }
            }
            if relevant.is_empty() {
                dataset.skipped_queries += 1;
                continue;
            }
            queries.push(Query {
                text: qa.question.clone(),
                relevant,
                category: qa.category.to_string(),
            });
        }
        dataset.namespaces.push(Namespace {
            name: sample.sample_id.clone(),
            docs,
            queries,
        });
    }
    if dataset.documents() == 0 {
        return Err(EvalError::input(
            path,
            "the corpus is empty: no conversation turns",
        ));
    }
    if dataset.queries() == 0 {
        return Err(EvalError::input(
            path,
            "no question has evidence turns to score",
        ));
    }
    Ok(dataset)
}

/// The turns of one sample, in session order.
fn turns(path: &Path, sample: &Sample, format: TurnFormat) -> Result<Vec<Doc>, EvalError> {
    let mut sessions: BTreeMap<u32, &Value> = BTreeMap::new();
    for (key, value) in &sample.conversation {
        if let Some(n) = key
            .strip_prefix("session_")
            .and_then(|n| n.parse::<u32>().ok())
        {
            sessions.insert(n, value);
        }
    }
    let mut docs = Vec::new();
    for (n, value) in sessions {
        let date = sample
            .conversation
            .get(&format!("session_{n}_date_time"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let start = session_start(date, n);
        let turns: Vec<Turn> = serde_json::from_value((*value).clone()).map_err(|e| {
            EvalError::input(
                path,
                format!(
                    "wrong schema: sample `{}` session_{n}: {e}",
                    sample.sample_id
                ),
            )
        })?;
        for (i, turn) in turns.into_iter().enumerate() {
            let id = normalise_dia_id(&turn.dia_id).unwrap_or_else(|| turn.dia_id.clone());
            let content = render(&turn, date, format);
            let offset = TimeDelta::seconds(i64::try_from(i).unwrap_or(i64::MAX / 2));
            docs.push(Doc {
                metadata: json!({
                    "conversation": sample.sample_id,
                    // Store-wide unique, as the stores' context field
                    // (`retriever::ContextField`) needs.
                    "session": format!("{}/{n}", sample.sample_id),
                    "dia_id": id,
                    "speaker": turn.speaker,
                    "date": date,
                }),
                id,
                content,
                created_at: start + offset,
            });
        }
    }
    Ok(docs)
}

fn render(turn: &Turn, date: &str, format: TurnFormat) -> String {
    match format {
        TurnFormat::Text => turn.text.clone(),
        TurnFormat::Speaker => format!("{}: {}", turn.speaker, turn.text),
        TurnFormat::Full => {
            let mut s = format!("[{date}] {}: {}", turn.speaker, turn.text);
            if let Some(caption) = turn.blip_caption.as_deref().filter(|c| !c.is_empty()) {
                s.push_str(&format!(" [image: {caption}]"));
            }
            s
        }
    }
}

/// The session's start time from `"1:56 pm on 8 May, 2023"`; when it does not
/// parse, day `n` after 2000-01-01 (order is all that matters).
fn session_start(date: &str, n: u32) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(date, "%I:%M %p on %d %B, %Y")
        .map(|d| d.and_utc())
        .unwrap_or_else(|_| DateTime::<Utc>::UNIX_EPOCH + TimeDelta::days(10_957 + i64::from(n)))
}

/// Splits an evidence string that may hold several ids (`"D8:6; D9:17"`,
/// `"D9:1 D4:4 D4:6"`).
fn split_evidence(evidence: &str) -> impl Iterator<Item = &str> {
    evidence
        .split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
}

/// `D<session>:<turn>` with numbers normalised (`D:11:26` → `D11:26`,
/// `D30:05` → `D30:5`); `None` when it is not such an id.
pub fn normalise_dia_id(id: &str) -> Option<String> {
    let rest = id.trim().strip_prefix('D')?;
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let (session, turn) = rest.split_once(':')?;
    let session: u32 = session.parse().ok()?;
    let turn: u32 = turn.parse().ok()?;
    Some(format!("D{session}:{turn}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dia_ids_are_normalised() {
        assert_eq!(normalise_dia_id("D:11:26").as_deref(), Some("D11:26"));
        assert_eq!(normalise_dia_id("D30:05").as_deref(), Some("D30:5"));
        assert_eq!(normalise_dia_id("D"), None);
        assert_eq!(normalise_dia_id("D1:x"), None);
    }

    #[test]
    fn evidence_strings_are_split() {
        let ids: Vec<&str> = split_evidence("D9:1 D4:4; D4:6").collect();
        assert_eq!(ids, vec!["D9:1", "D4:4", "D4:6"]);
    }

    #[test]
    fn session_dates_parse() {
        let d = session_start("1:56 pm on 8 May, 2023", 1);
        assert_eq!(d.to_rfc3339(), "2023-05-08T13:56:00+00:00");
    }

    proptest::proptest! {
        #[test]
        fn normalised_ids_are_fixed_points(s in ".{0,12}|D:?0*[0-9]{1,3}:0*[0-9]{1,3}") {
            if let Some(id) = normalise_dia_id(&s) {
                proptest::prop_assert!(id.starts_with('D'));
                proptest::prop_assert_eq!(normalise_dia_id(&id), Some(id.clone()));
            }
        }
    }
}
