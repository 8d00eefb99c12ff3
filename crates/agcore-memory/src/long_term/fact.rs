//! [`Fact`]: one fact proposed by an extractor, as [`ScopedMemory::apply_facts`]
//! takes it (the extraction request and the parser of model replies are
//! `agcore-agent`'s, in `agcore_agent::turn_memory`).
//!
//! [`ScopedMemory::apply_facts`]: super::ScopedMemory::apply_facts

use serde::{Deserialize, Serialize};

use super::entry::MemoryType;

/// The metadata key under which an extracted memory keeps the type word the
/// extractor gave (`preference`, `fact`, `user`, `project`, …) when it is
/// finer than [`MemoryType`]: `preference` and `fact` are both stored as
/// [`MemoryType::User`] and told apart by it.
pub const FACT_TYPE_KEY: &str = "fact_type";

/// One fact proposed by the extractor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fact {
    /// The fact, one self-contained sentence.
    pub content: String,
    /// Its kind.
    pub memory_type: MemoryType,
    /// The type word the extractor gave, lowercased, when it is finer than
    /// `memory_type` (`preference` or `fact`, both [`MemoryType::User`]);
    /// saved under [`FACT_TYPE_KEY`] in the memory's metadata.
    pub fact_type: Option<String>,
    /// Lowercased tags.
    pub tags: Vec<String>,
    /// The extractor's confidence, in `[0, 1]`.
    pub confidence: f64,
    /// The id of a known memory of the same scope this fact makes obsolete.
    pub replace: Option<i64>,
}

impl Fact {
    /// A fact of `memory_type` with `content` and `confidence` (clamped to `[0, 1]`).
    pub fn new(content: impl Into<String>, memory_type: MemoryType, confidence: f64) -> Self {
        Self {
            content: content.into(),
            memory_type,
            fact_type: None,
            tags: Vec::new(),
            confidence: if confidence.is_nan() {
                0.0
            } else {
                confidence.clamp(0.0, 1.0)
            },
            replace: None,
        }
    }

    /// Sets the tags.
    #[must_use]
    pub fn with_tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Marks the fact as replacing the memory of id `old` (of the scope it
    /// is applied to).
    #[must_use]
    pub fn replacing(mut self, old: i64) -> Self {
        self.replace = Some(old);
        self
    }

    /// Keeps `word`, the extractor's finer type (`preference`, `fact`).
    #[must_use]
    pub fn with_fact_type(mut self, word: impl Into<String>) -> Self {
        self.fact_type = Some(word.into());
        self
    }
}
