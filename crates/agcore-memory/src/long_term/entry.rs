//! The long-term memory record ([`MemoryEntry`]), its kind ([`MemoryType`])
//! and the way to its owner ([`MemoryScope`]); the write inputs are in
//! `changes.rs`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::scope::MemoryScope;
use crate::MemoryError;

/// Longest memory content, in bytes (64 KiB: a memory is a fact, not a document).
pub const MAX_ENTRY_CONTENT_BYTES: usize = 64 * 1024;

/// The four kinds of long-term memory (see `docs/memory.md`, *Entries and types*).
///
/// Serialized as its lowercase name; the JSON Schema (`schemars`) is the
/// `type` argument of the memory tools, its variants' descriptions included.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    /// The user's profile: preferences, role, habits.
    User,
    /// Project knowledge: progress, decisions, constraints.
    Project,
    /// Feedback on the assistant's behaviour: corrections and confirmations.
    Feedback,
    /// Links to external resources and documents.
    Reference,
}

impl MemoryType {
    /// Every type, in declaration order.
    pub const ALL: [Self; 4] = [Self::User, Self::Project, Self::Feedback, Self::Reference];

    /// The stored name: `user`, `project`, `feedback` or `reference`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Feedback => "feedback",
            Self::Reference => "reference",
        }
    }

    /// Parses a stored name (case-insensitive, surrounding spaces ignored).
    /// The fact-extraction aliases `preference` and `fact` mean
    /// [`MemoryType::User`] (the fact types of the extractor prompt).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for any other text.
    pub fn parse(text: &str) -> Result<Self, MemoryError> {
        match text.trim().to_lowercase().as_str() {
            "user" | "preference" | "fact" => Ok(Self::User),
            "project" => Ok(Self::Project),
            "feedback" => Ok(Self::Feedback),
            "reference" => Ok(Self::Reference),
            other => Err(MemoryError::InvalidInput(format!(
                "unknown memory type `{other}` (expected user, project, feedback or reference)"
            ))),
        }
    }
}

impl std::fmt::Display for MemoryType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One long-term memory: the entry with its weight, tags, archive flag and
/// usage counters (see `docs/memory.md`, *Entries and types*).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// Row id, unique within the store, assigned on creation.
    pub id: i64,
    /// The owning agent.
    pub agent_name: String,
    /// The owning user.
    pub user_id: String,
    /// The kind of memory.
    pub memory_type: MemoryType,
    /// A short title.
    pub name: String,
    /// The memory text.
    pub content: String,
    /// A one-line description used to judge relevance at a glance.
    pub description: String,
    /// Free-form JSON object (empty when none).
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Lowercased, de-duplicated tags.
    pub tags: Vec<String>,
    /// Importance, in `[weights.min, weights.max]` (default range 0–10, new entries 1.0).
    pub weight: f64,
    /// Archived entries are left out of search and default listings.
    pub archived: bool,
    /// How many times the entry was recorded as used (injected or recalled).
    pub use_count: u64,
    /// When it was last used, if ever.
    pub last_used_at: Option<DateTime<Utc>>,
    /// When `weight` was last set (age decay counts from here).
    pub weight_updated_at: DateTime<Utc>,
    /// Creation time (UTC).
    pub created_at: DateTime<Utc>,
    /// Last change of any field (UTC).
    pub updated_at: DateTime<Utc>,
}

impl MemoryEntry {
    /// The scope the entry belongs to.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when `agent_name` / `user_id` do not
    /// form a valid [`MemoryScope`] (an entry read from a backup file).
    pub fn scope(&self) -> Result<MemoryScope, MemoryError> {
        MemoryScope::new(self.agent_name.clone(), self.user_id.clone())
    }

    /// The text that is indexed for search: name, content and description.
    pub fn search_text(&self) -> String {
        Self::search_text_of(&self.name, &self.content, &self.description)
    }

    /// [`Self::search_text`] of an entry's fields as a backend reads them
    /// from a row (re-indexing, backfills), so every path indexes the same
    /// text.
    pub fn search_text_of(name: &str, content: &str, description: &str) -> String {
        format!("{name} {content} {description}")
    }
}

/// The answer of [`LongTermBackend::get_many`](super::LongTermBackend::get_many)
/// from the entries a backend found in any order: one per id of `ids`, in
/// order, `None` where none has that id, a repeated id answered each time.
/// For backends whose bulk read (`= ANY`, `IN (…)`) returns rows unordered.
pub fn entries_in_order(
    ids: &[i64],
    found: impl IntoIterator<Item = MemoryEntry>,
) -> Vec<Option<MemoryEntry>> {
    let found: std::collections::HashMap<i64, MemoryEntry> =
        found.into_iter().map(|entry| (entry.id, entry)).collect();
    ids.iter().map(|id| found.get(id).cloned()).collect()
}
