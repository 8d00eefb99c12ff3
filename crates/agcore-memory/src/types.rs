use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::MemoryError;

/// Largest accepted item id, in bytes of UTF-8.
pub const MAX_ID_BYTES: usize = 512;
/// Largest accepted item content, in bytes of UTF-8 (64 MiB).
pub const MAX_CONTENT_BYTES: usize = 64 * 1024 * 1024;

/// One stored memory.
///
/// Ids are namespaced by prefix by convention (`"conv:{session}:{seq}"`,
/// `"wiki:{page}"`); [`MemoryFilter::prefix`] selects one namespace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryItem {
    /// Unique id, 1–[`MAX_ID_BYTES`] bytes.
    pub id: String,
    /// The text; searched by full-text search. Stored verbatim.
    pub content: String,
    /// Free-form JSON (an object by convention); filterable with [`MemoryFilter::metadata`].
    #[serde(default)]
    pub metadata: serde_json::Value,
    /// Creation time (UTC); TTL and capacity eviction use it.
    pub created_at: DateTime<Utc>,
}

impl MemoryItem {
    /// A new item created now, with `null` metadata.
    pub fn new(id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            content: content.into(),
            metadata: serde_json::Value::Null,
            created_at: Utc::now(),
        }
    }

    /// Sets the metadata.
    pub fn with_metadata(mut self, metadata: serde_json::Value) -> Self {
        self.metadata = metadata;
        self
    }

    /// Sets the creation time.
    pub fn with_created_at(mut self, created_at: DateTime<Utc>) -> Self {
        self.created_at = created_at;
        self
    }

    /// Checks the id and content sizes.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for an empty id, an id over [`MAX_ID_BYTES`],
    /// an id holding a NUL character, or content over [`MAX_CONTENT_BYTES`].
    pub fn validate(&self) -> Result<(), MemoryError> {
        validate_id(&self.id)?;
        if self.content.len() > MAX_CONTENT_BYTES {
            return Err(MemoryError::InvalidInput(format!(
                "content of `{}` is {} bytes; the limit is {MAX_CONTENT_BYTES}",
                truncate(&self.id),
                self.content.len()
            )));
        }
        Ok(())
    }
}

/// Checks an id: non-empty, at most [`MAX_ID_BYTES`] bytes, no NUL.
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the problem.
pub fn validate_id(id: &str) -> Result<(), MemoryError> {
    if id.is_empty() {
        return Err(MemoryError::InvalidInput("id must not be empty".into()));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(MemoryError::InvalidInput(format!(
            "id `{}…` is {} bytes; the limit is {MAX_ID_BYTES}",
            truncate(id),
            id.len()
        )));
    }
    if id.contains('\0') {
        return Err(MemoryError::InvalidInput("id must not contain NUL".into()));
    }
    Ok(())
}

fn truncate(s: &str) -> &str {
    let mut end = s.len().min(40);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// Which items [`crate::MemoryStore::list`] returns. All conditions must hold.
///
/// Results are ordered by `created_at` ascending, then `id`; `limit` keeps the
/// first `limit` of that order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryFilter {
    /// Only ids starting with this prefix (byte-wise).
    pub prefix: Option<String>,
    /// Only items created at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only items created before this time.
    #[serde(default)]
    pub until: Option<DateTime<Utc>>,
    /// Only items whose metadata object has each of these top-level keys equal
    /// to the given scalar (string, number, bool or null).
    #[serde(default)]
    pub metadata: Vec<(String, serde_json::Value)>,
    /// At most this many items (must be ≥ 1 when set).
    pub limit: Option<usize>,
}

impl MemoryFilter {
    /// Everything.
    pub fn all() -> Self {
        Self::default()
    }

    /// Ids starting with `prefix`.
    pub fn with_prefix(prefix: impl Into<String>) -> Self {
        Self {
            prefix: Some(prefix.into()),
            ..Self::default()
        }
    }

    /// Sets `limit`.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Sets `since`.
    pub fn since(mut self, since: DateTime<Utc>) -> Self {
        self.since = Some(since);
        self
    }

    /// Sets `until`.
    pub fn until(mut self, until: DateTime<Utc>) -> Self {
        self.until = Some(until);
        self
    }

    /// Adds a metadata equality condition.
    pub fn metadata_eq(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
        self.metadata.push((key.into(), value));
        self
    }

    /// Checks the filter.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when `limit` is 0, `until` is not after
    /// `since`, a metadata key is empty, or a metadata value is an array or object.
    pub fn validate(&self) -> Result<(), MemoryError> {
        if self.limit == Some(0) {
            return Err(MemoryError::InvalidInput(
                "filter limit must be at least 1".into(),
            ));
        }
        if let (Some(since), Some(until)) = (self.since, self.until)
            && until <= since
        {
            return Err(MemoryError::InvalidInput(format!(
                "filter `until` ({until}) must be after `since` ({since})"
            )));
        }
        for (key, value) in &self.metadata {
            if key.is_empty() {
                return Err(MemoryError::InvalidInput(
                    "metadata filter key must not be empty".into(),
                ));
            }
            if value.is_array() || value.is_object() {
                return Err(MemoryError::InvalidInput(format!(
                    "metadata filter `{key}` must compare with a scalar, not {value}"
                )));
            }
        }
        Ok(())
    }

    /// Whether `item` satisfies every condition except `limit`.
    pub fn matches(&self, item: &MemoryItem) -> bool {
        if let Some(prefix) = &self.prefix
            && !item.id.starts_with(prefix.as_str())
        {
            return false;
        }
        if self.since.is_some_and(|since| item.created_at < since) {
            return false;
        }
        if self.until.is_some_and(|until| item.created_at >= until) {
            return false;
        }
        self.metadata
            .iter()
            .all(|(key, value)| item.metadata.get(key) == Some(value))
    }
}

/// How a [`ConversationMemory`](crate::ConversationMemory) keeps history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MemoryStrategy {
    /// Keep the last `max_turns` user turns (with their replies and tool messages).
    SlidingWindow {
        /// Number of user turns kept.
        max_turns: usize,
    },
    /// Keep everything (subject to capacity eviction and compaction).
    Full,
}
