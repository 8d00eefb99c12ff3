//! How pages and log entries are stored as [`MemoryItem`]s, and page ids.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{KnowledgePage, MemoryError, MemoryItem, PageIndexEntry};

/// Id prefix of page items: `wiki:page:{page_id}`.
pub const PAGE_PREFIX: &str = "wiki:page:";
/// Id prefix of log items: `wiki:log:{seq:020}`.
pub const LOG_PREFIX: &str = "wiki:log:";
/// Longest accepted page id, in bytes (it is also a file name on export).
pub const MAX_PAGE_ID_BYTES: usize = 200;

/// A search hit of [`KnowledgeStore::search_scored`](super::KnowledgeStore::search_scored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredPage {
    /// The page.
    pub page: KnowledgePage,
    /// The backend's relevance score (BM25 for the built-in stores), higher is better.
    pub score: f64,
}

/// What a [`LogEntry`] records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LogAction {
    /// A page was added.
    Create,
    /// A page was replaced.
    Update,
    /// A page was deleted.
    Delete,
    /// A page was imported from a Markdown folder.
    Import,
}

impl LogAction {
    /// The lowercase word used in `log.md`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Update => "update",
            Self::Delete => "delete",
            Self::Import => "import",
        }
    }

    /// Parses [`Self::as_str`].
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "create" => Some(Self::Create),
            "update" => Some(Self::Update),
            "delete" => Some(Self::Delete),
            "import" => Some(Self::Import),
            _ => None,
        }
    }
}

/// One line of the append-only change log (the LLM Wiki's `log.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Position in the log, strictly increasing.
    pub seq: u64,
    /// When the change happened (UTC).
    pub at: DateTime<Utc>,
    /// What happened.
    pub action: LogAction,
    /// The page changed.
    pub page_id: String,
    /// The page title at that time (newlines replaced by spaces).
    pub title: String,
}

/// Checks a page id: 1–[`MAX_PAGE_ID_BYTES`] bytes, usable as a portable file
/// name (no `/ \ : * ? " < > |`, control characters, or leading `.`).
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the problem.
pub fn validate_page_id(id: &str) -> Result<(), MemoryError> {
    if id.is_empty() || id.len() > MAX_PAGE_ID_BYTES {
        return Err(MemoryError::InvalidInput(format!(
            "page id must be 1–{MAX_PAGE_ID_BYTES} bytes, got {}",
            id.len()
        )));
    }
    if id.starts_with('.') {
        return Err(MemoryError::InvalidInput(format!(
            "page id `{id}` must not start with `.`"
        )));
    }
    if let Some(c) = id.chars().find(|c| {
        c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
    }) {
        return Err(MemoryError::InvalidInput(format!(
            "page id `{}` must not contain {c:?}",
            id.escape_debug()
        )));
    }
    Ok(())
}

pub(super) fn page_item_id(page_id: &str) -> String {
    format!("{PAGE_PREFIX}{page_id}")
}

pub(super) fn log_item_id(seq: u64) -> String {
    format!("{LOG_PREFIX}{seq:020}")
}

/// The page as an item: searchable content = title, summary, tags, body.
pub(super) fn page_to_item(page: &KnowledgePage) -> Result<MemoryItem, MemoryError> {
    let text = format!(
        "{}\n{}\n{}\n{}",
        page.title,
        page.summary,
        page.tags.join(" "),
        page.content
    );
    let metadata = serde_json::json!({ "kind": "wiki_page", "page": serde_json::to_value(page)? });
    Ok(MemoryItem::new(page_item_id(&page.id), text)
        .with_metadata(metadata)
        .with_created_at(page.created_at))
}

pub(super) fn page_from_item(item: &MemoryItem) -> Result<KnowledgePage, MemoryError> {
    let value = item.metadata.get("page").cloned().ok_or_else(|| {
        MemoryError::Serialization(format!("wiki item `{}` holds no page", item.id))
    })?;
    Ok(serde_json::from_value(value)?)
}

pub(super) fn log_to_item(entry: &LogEntry) -> Result<MemoryItem, MemoryError> {
    let text = format!(
        "{} {} {}",
        entry.action.as_str(),
        entry.page_id,
        entry.title
    );
    let metadata = serde_json::json!({ "kind": "wiki_log", "entry": serde_json::to_value(entry)? });
    Ok(MemoryItem::new(log_item_id(entry.seq), text)
        .with_metadata(metadata)
        .with_created_at(entry.at))
}

pub(super) fn log_from_item(item: &MemoryItem) -> Result<LogEntry, MemoryError> {
    let value = item.metadata.get("entry").cloned().ok_or_else(|| {
        MemoryError::Serialization(format!("wiki item `{}` holds no log entry", item.id))
    })?;
    Ok(serde_json::from_value(value)?)
}

/// The index line of a page.
pub fn index_entry(page: &KnowledgePage) -> PageIndexEntry {
    PageIndexEntry {
        id: page.id.clone(),
        title: page.title.clone(),
        summary: page.summary.clone(),
        tags: page.tags.clone(),
        updated_at: page.updated_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ids() {
        for ok in ["rust", "记忆系统", "a.b-c_d", "with space"] {
            validate_page_id(ok).unwrap();
        }
        for bad in ["", ".hidden", "a/b", "a\\b", "a|b", "a\nb", "a:b"] {
            assert!(validate_page_id(bad).is_err(), "{bad:?}");
        }
        assert!(validate_page_id(&"x".repeat(MAX_PAGE_ID_BYTES + 1)).is_err());
    }

    #[test]
    fn page_round_trips_through_an_item() {
        let page = KnowledgePage::new("p", "Title", "Sum", "Body").with_tags(["t1"]);
        let item = page_to_item(&page).unwrap();
        assert_eq!(item.id, "wiki:page:p");
        assert!(item.content.contains("Title") && item.content.contains("t1"));
        assert_eq!(page_from_item(&item).unwrap(), page);
    }
}
