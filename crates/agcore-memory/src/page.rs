//! The records of the knowledge store: a wiki page ([`KnowledgePage`]) and
//! its line in the index ([`PageIndexEntry`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A wiki page of the knowledge store (after the LLM-Wiki pattern: one
/// Markdown page per topic, an index, a log).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnowledgePage {
    /// Page id (slug), unique.
    pub id: String,
    /// Title.
    pub title: String,
    /// One-line summary, shown in the index.
    pub summary: String,
    /// Markdown body.
    pub content: String,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Ids of pages this page links to.
    #[serde(default)]
    pub references: Vec<String>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last update time.
    pub updated_at: DateTime<Utc>,
}

impl KnowledgePage {
    /// A page created and updated now, without tags or references.
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        summary: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        let now = Utc::now();
        Self {
            id: id.into(),
            title: title.into(),
            summary: summary.into(),
            content: content.into(),
            tags: Vec::new(),
            references: Vec::new(),
            created_at: now,
            updated_at: now,
        }
    }

    /// Sets the tags.
    pub fn with_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the ids of the pages this page links to.
    pub fn with_references<I, S>(mut self, references: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.references = references.into_iter().map(Into::into).collect();
        self
    }

    /// Sets both timestamps.
    pub fn with_timestamps(mut self, created_at: DateTime<Utc>, updated_at: DateTime<Utc>) -> Self {
        self.created_at = created_at;
        self.updated_at = updated_at;
        self
    }
}

/// One line of the knowledge store's index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageIndexEntry {
    /// Page id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Summary.
    pub summary: String,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Last update time.
    pub updated_at: DateTime<Utc>,
}
