//! The wiki as Markdown: one page per file with front matter, `index.md`, `log.md`.
//!
//! Front matter is YAML written in its JSON-compatible subset (each value a
//! JSON scalar or array), so any YAML reader accepts it and parsing back is exact:
//!
//! ```text
//! ---
//! id: "rust"
//! title: "Rust"
//! summary: "A systems language"
//! tags: ["lang"]
//! references: ["cargo"]
//! created_at: "2024-01-01T00:00:00Z"
//! updated_at: "2024-01-01T00:00:00Z"
//! ---
//! Markdown body…
//! ```

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use super::{LogAction, LogEntry};
use crate::{KnowledgePage, MemoryError, PageIndexEntry};

const FENCE: &str = "---";

fn json<T: serde::Serialize>(value: &T) -> Result<String, MemoryError> {
    Ok(serde_json::to_string(value)?)
}

/// Renders a page file: front matter, then the body verbatim.
///
/// # Errors
/// [`MemoryError::Serialization`] if a field cannot be encoded.
pub fn render_page(page: &KnowledgePage) -> Result<String, MemoryError> {
    let mut out = String::new();
    let fields: [(&str, String); 7] = [
        ("id", json(&page.id)?),
        ("title", json(&page.title)?),
        ("summary", json(&page.summary)?),
        ("tags", json(&page.tags)?),
        ("references", json(&page.references)?),
        ("created_at", json(&page.created_at)?),
        ("updated_at", json(&page.updated_at)?),
    ];
    out.push_str(FENCE);
    out.push('\n');
    for (key, value) in fields {
        let _ = writeln!(out, "{key}: {value}");
    }
    out.push_str(FENCE);
    out.push('\n');
    out.push_str(&page.content);
    Ok(out)
}

/// Parses a file written by [`render_page`]; `name` appears in errors.
///
/// # Errors
/// [`MemoryError::Serialization`] when the front matter is missing, a line
/// is not `key: json`, or a required field is absent.
pub fn parse_page(name: &str, text: &str) -> Result<KnowledgePage, MemoryError> {
    let bad = |why: &str| MemoryError::Serialization(format!("{name}: {why}"));
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| bad("missing front matter (`---` on the first line)"))?;
    let mut fields = serde_json::Map::new();
    let mut body_start = None;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if trimmed == FENCE {
            body_start = Some(offset);
            break;
        }
        if trimmed.trim().is_empty() {
            continue;
        }
        let (key, value) = trimmed.split_once(':').ok_or_else(|| {
            bad(&format!(
                "front matter line `{trimmed}` is not `key: value`"
            ))
        })?;
        let value: serde_json::Value = serde_json::from_str(value.trim())
            .map_err(|e| bad(&format!("front matter `{key}`: {e}")))?;
        fields.insert(key.trim().to_owned(), value);
    }
    let body_start = body_start.ok_or_else(|| bad("front matter is not closed by `---`"))?;
    let body = rest.get(body_start..).unwrap_or("");
    fields.insert("content".into(), serde_json::Value::String(body.to_owned()));
    serde_json::from_value(serde_json::Value::Object(fields))
        .map_err(|e| bad(&format!("front matter: {e}")))
}

/// File name of a page: `{id}.md`.
pub fn page_file_name(id: &str) -> String {
    format!("{id}.md")
}

/// Renders `index.md`: one line per page, linking `pages/{id}.md`.
pub fn render_index(entries: &[PageIndexEntry]) -> String {
    let mut out = String::from("# Index\n\n");
    for e in entries {
        let _ = write!(
            out,
            "- [{}](pages/{}) — {}",
            one_line(&e.title),
            page_file_name(&e.id),
            one_line(&e.summary)
        );
        if !e.tags.is_empty() {
            let _ = write!(out, " (tags: {})", e.tags.join(", "));
        }
        out.push('\n');
    }
    out
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// Renders `log.md`, one `## [time] action | page | title` heading per entry
/// (the LLM-Wiki log format).
pub fn render_log(entries: &[LogEntry]) -> String {
    let mut out = String::from("# Log\n\n");
    for e in entries {
        let _ = writeln!(
            out,
            "## [{}] {} | {} | {}",
            e.at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            e.action.as_str(),
            e.page_id,
            one_line(&e.title)
        );
    }
    out
}

/// Parses a `log.md` written by [`render_log`]; other lines are ignored.
/// Sequence numbers are assigned in file order from 0.
///
/// # Errors
/// [`MemoryError::Serialization`] for a heading that does not parse.
pub fn parse_log(text: &str) -> Result<Vec<LogEntry>, MemoryError> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("## [") else {
            continue;
        };
        let bad = || MemoryError::Serialization(format!("log.md: cannot parse `{line}`"));
        let (at, rest) = rest.split_once("] ").ok_or_else(bad)?;
        let at: DateTime<Utc> = DateTime::parse_from_rfc3339(at)
            .map_err(|_| bad())?
            .to_utc();
        let mut parts = rest.splitn(3, " | ");
        let action = parts.next().and_then(LogAction::parse).ok_or_else(bad)?;
        let page_id = parts.next().ok_or_else(bad)?.to_owned();
        let title = parts.next().unwrap_or("").to_owned();
        out.push(LogEntry {
            seq: u64::try_from(out.len()).unwrap_or(u64::MAX),
            at,
            action,
            page_id,
            title,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_round_trip_keeps_everything() {
        let page = KnowledgePage::new(
            "p1",
            "Title: with \"quotes\"\nand newline",
            "总结",
            "# Body\n---\nmore\n",
        )
        .with_tags(["a", "b"])
        .with_references(["p2"]);
        let text = render_page(&page).unwrap();
        assert_eq!(parse_page("p1.md", &text).unwrap(), page);
    }

    #[test]
    fn parse_page_rejects_garbage() {
        assert!(parse_page("x.md", "no front matter").is_err());
        assert!(parse_page("x.md", "---\nid: \"x\"\n").is_err());
        assert!(parse_page("x.md", "---\nid: x\n---\n").is_err());
    }

    #[test]
    fn log_round_trip() {
        let at = DateTime::parse_from_rfc3339("2024-01-02T03:04:05Z")
            .unwrap()
            .to_utc();
        let entries = vec![
            LogEntry {
                seq: 0,
                at,
                action: LogAction::Create,
                page_id: "p".into(),
                title: "A | B".into(),
            },
            LogEntry {
                seq: 1,
                at,
                action: LogAction::Delete,
                page_id: "q".into(),
                title: String::new(),
            },
        ];
        assert_eq!(parse_log(&render_log(&entries)).unwrap(), entries);
    }
}
