//! The write inputs of long-term memory: a memory to save ([`NewMemory`])
//! and the changes to an entry ([`MemoryUpdate`]).

use serde::{Deserialize, Serialize};

use super::entry::MemoryType;

/// A memory to save (the caller-supplied fields of a [`MemoryEntry`](super::MemoryEntry)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NewMemory {
    /// The kind of memory.
    pub memory_type: MemoryType,
    /// A short title; derived from the content when empty.
    pub name: String,
    /// The memory text (non-empty, at most
    /// [`MAX_ENTRY_CONTENT_BYTES`](super::MAX_ENTRY_CONTENT_BYTES)).
    pub content: String,
    /// One-line description (may be empty).
    pub description: String,
    /// Free-form JSON object.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Tags (lowercased and de-duplicated on save).
    pub tags: Vec<String>,
    /// Initial weight; `None` uses `weights.initial` of the configuration.
    pub weight: Option<f64>,
}

impl NewMemory {
    /// A memory of `memory_type` titled `name` with `content`.
    pub fn new(
        memory_type: MemoryType,
        name: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self {
            memory_type,
            name: name.into(),
            content: content.into(),
            description: String::new(),
            metadata: serde_json::Map::new(),
            tags: Vec::new(),
            weight: None,
        }
    }

    /// Sets the one-line description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets the tags.
    #[must_use]
    pub fn with_tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the metadata object.
    #[must_use]
    pub fn with_metadata(mut self, metadata: serde_json::Map<String, serde_json::Value>) -> Self {
        self.metadata = metadata;
        self
    }

    /// Sets the initial weight.
    #[must_use]
    pub fn with_weight(mut self, weight: f64) -> Self {
        self.weight = Some(weight);
        self
    }
}

/// A partial change to an entry; `None` fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MemoryUpdate {
    /// New kind.
    pub memory_type: Option<MemoryType>,
    /// New title.
    pub name: Option<String>,
    /// New text; the previous text is kept in the entry's history.
    pub content: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// Replaces the metadata object.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Replaces the tags.
    pub tags: Option<Vec<String>>,
    /// Sets the weight (clamped to the configured range).
    pub weight: Option<f64>,
    /// Archives (`true`) or restores (`false`) the entry.
    pub archived: Option<bool>,
    /// Writes the entry's current title and text to its history (with the
    /// update's reason) even when the content does not change — how
    /// maintenance records that a near-duplicate was superseded (default `false`).
    #[serde(default)]
    pub record_history: bool,
}

impl MemoryUpdate {
    /// An update that changes nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Changes the content.
    #[must_use]
    pub fn content(mut self, content: impl Into<String>) -> Self {
        self.content = Some(content.into());
        self
    }

    /// Changes the title.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Changes the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Changes the kind.
    #[must_use]
    pub fn memory_type(mut self, memory_type: MemoryType) -> Self {
        self.memory_type = Some(memory_type);
        self
    }

    /// Replaces the metadata.
    #[must_use]
    pub fn metadata(mut self, metadata: serde_json::Map<String, serde_json::Value>) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Replaces the tags.
    #[must_use]
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the weight.
    #[must_use]
    pub fn weight(mut self, weight: f64) -> Self {
        self.weight = Some(weight);
        self
    }

    /// Archives or restores.
    #[must_use]
    pub fn archived(mut self, archived: bool) -> Self {
        self.archived = Some(archived);
        self
    }

    /// Records the current title and text in the history even when the
    /// content stays the same.
    #[must_use]
    pub fn record_history(mut self) -> Self {
        self.record_history = true;
        self
    }
}
