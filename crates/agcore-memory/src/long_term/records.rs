//! Results and records exchanged with a backend: hits, save outcomes,
//! history, usage, maintenance counts, buffered dialogue turns.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::entry::MemoryEntry;
use crate::MemoryError;

/// A search hit: the entry and its BM25 relevance (> 0, higher is better).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredEntry {
    /// The entry.
    pub entry: MemoryEntry,
    /// BM25 score (backend-specific scale).
    pub score: f64,
}

/// The result of a save: the stored entry and whether it is new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveOutcome {
    /// The entry as stored.
    pub entry: MemoryEntry,
    /// `true` when a new entry was created; `false` when an entry of the same
    /// scope with the same [`content_key`](super::content_key) was updated.
    pub created: bool,
}

/// Why an old text was written to an entry's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HistoryReason {
    /// The content was changed by an update.
    Update,
    /// The content was replaced by a newer fact (supersede).
    Supersede,
    /// The entry was deleted.
    Delete,
}

impl HistoryReason {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Update => "update",
            Self::Supersede => "supersede",
            Self::Delete => "delete",
        }
    }

    /// Parses a stored name.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] for an unknown name.
    pub fn parse(text: &str) -> Result<Self, MemoryError> {
        match text {
            "update" => Ok(Self::Update),
            "supersede" => Ok(Self::Supersede),
            "delete" => Ok(Self::Delete),
            other => Err(MemoryError::Storage(format!(
                "unknown history reason `{other}`"
            ))),
        }
    }
}

/// A previous text of an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// The entry the text belonged to.
    pub memory_id: i64,
    /// Its title at the time.
    pub name: String,
    /// The old text.
    pub content: String,
    /// Why it was replaced.
    pub reason: HistoryReason,
    /// When it was replaced (UTC).
    pub recorded_at: DateTime<Utc>,
}

/// One use of memories in a turn (injected by prefetch or returned by recall).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageRecord {
    /// The conversation session.
    pub session_id: String,
    /// The query that found the memories.
    pub query: String,
    /// The entries used; ids of other scopes are ignored.
    pub ids: Vec<i64>,
    /// Whether the reply referenced them.
    pub referenced: bool,
}

impl UsageRecord {
    /// A use of `ids` in `session_id` for `query`.
    pub fn new(
        session_id: impl Into<String>,
        query: impl Into<String>,
        ids: Vec<i64>,
        referenced: bool,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            query: query.into(),
            ids,
            referenced,
        }
    }
}

/// One row of the usage log (see `docs/memory.md`, *Weights, usage and archiving*).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageLogRow {
    /// The entry used.
    pub memory_id: i64,
    /// The session it was used in.
    pub session_id: String,
    /// The query that found it.
    pub query: String,
    /// Whether the reply referenced it.
    pub was_referenced: bool,
    /// When (UTC).
    pub used_at: DateTime<Utc>,
}

/// Counts of one maintenance run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MaintenanceReport {
    /// Active entries whose weight the age decay lowered.
    pub decayed: usize,
    /// Entries newly archived because their weight fell below the archive
    /// threshold.
    pub archived: usize,
    /// Active entries archived as near-duplicates of another active entry of
    /// the same type (superseded: history reason `supersede`, metadata
    /// `superseded_by`; see `docs/memory.md`, *Maintenance*).
    #[serde(default)]
    pub deduplicated: usize,
    /// Applied dialogue-buffer turns purged.
    pub buffer_purged: usize,
    /// Active entries left.
    pub active: usize,
}

impl MaintenanceReport {
    /// Adds the counts of `other` to these (for totals over several scopes).
    pub fn add(&mut self, other: &Self) {
        self.decayed += other.decayed;
        self.archived += other.archived;
        self.deduplicated += other.deduplicated;
        self.buffer_purged += other.buffer_purged;
        self.active += other.active;
    }
}

/// One buffered dialogue turn (see `docs/memory.md`, *Extraction*).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DialogueTurn {
    /// Turn id, increasing in append order.
    pub id: i64,
    /// The session it belongs to.
    pub session_id: String,
    /// The user's message.
    pub user_query: String,
    /// The assistant's reply.
    pub assistant_response: String,
    /// When it was appended (UTC).
    pub created_at: DateTime<Utc>,
}
