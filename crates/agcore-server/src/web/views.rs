//! What the templates show of memories, search hits and scopes.

use agcore::memory::hybrid::Explained;
use agcore::memory::long_term::{MemoryEntry, MemoryScope, UsageLogRow};
use agcore::memory::retriever::ListScore;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// A time as the page shows it.
pub fn when(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A memory as the templates show it.
#[derive(Debug, Serialize)]
pub struct MemoryView {
    pub id: i64,
    pub memory_type: &'static str,
    pub name: String,
    pub content: String,
    pub description: String,
    pub tags: Vec<String>,
    pub weight: f64,
    pub archived: bool,
    pub use_count: u64,
    pub last_used: String,
    pub created: String,
    pub updated: String,
    pub source: String,
}

impl From<&MemoryEntry> for MemoryView {
    fn from(e: &MemoryEntry) -> Self {
        Self {
            id: e.id,
            memory_type: e.memory_type.as_str(),
            name: e.name.clone(),
            content: e.content.clone(),
            description: e.description.clone(),
            tags: e.tags.clone(),
            weight: e.weight,
            archived: e.archived,
            use_count: e.use_count,
            last_used: e.last_used_at.as_ref().map(when).unwrap_or_default(),
            created: when(&e.created_at),
            updated: when(&e.updated_at),
            source: e
                .metadata
                .get("source")
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned(),
        }
    }
}

/// One list's contribution to a hit: its score and 1-based rank.
#[derive(Debug, Serialize)]
pub struct ListView {
    pub score: f64,
    pub rank: usize,
}

impl From<&ListScore> for ListView {
    fn from(s: &ListScore) -> Self {
        Self {
            score: s.score,
            rank: s.rank,
        }
    }
}

/// A search hit with why it was recalled.
#[derive(Debug, Serialize)]
pub struct HitView {
    pub memory: MemoryView,
    pub lexical: Option<ListView>,
    pub dense: Option<ListView>,
    pub fused: f64,
    pub group: f64,
    pub decay: f64,
    pub score: f64,
    pub why: String,
}

impl From<&Explained<MemoryEntry>> for HitView {
    fn from(hit: &Explained<MemoryEntry>) -> Self {
        let b = &hit.breakdown;
        let why = match (&b.lexical, &b.dense) {
            (Some(_), Some(_)) => "its words and its meaning both match",
            (Some(_), None) => "its words match",
            (None, Some(_)) => "its meaning is close (no word in common needed)",
            (None, None) => "group evidence",
        };
        Self {
            memory: MemoryView::from(&hit.item),
            lexical: b.lexical.as_ref().map(ListView::from),
            dense: b.dense.as_ref().map(ListView::from),
            fused: b.fused,
            group: b.group,
            decay: b.decay,
            score: b.score,
            why: why.to_owned(),
        }
    }
}

/// One use of a memory.
#[derive(Debug, Serialize)]
pub struct UseView {
    pub used: String,
    pub session: String,
    pub query: String,
    pub referenced: bool,
}

impl From<&UsageLogRow> for UseView {
    fn from(row: &UsageLogRow) -> Self {
        Self {
            used: when(&row.used_at),
            session: row.session_id.clone(),
            query: row.query.clone(),
            referenced: row.was_referenced,
        }
    }
}

/// The scope of a page.
#[derive(Debug, Serialize)]
pub struct ScopeView {
    pub agent: String,
    pub user: String,
}

impl From<&MemoryScope> for ScopeView {
    fn from(s: &MemoryScope) -> Self {
        Self {
            agent: s.agent().to_owned(),
            user: s.user().to_owned(),
        }
    }
}
