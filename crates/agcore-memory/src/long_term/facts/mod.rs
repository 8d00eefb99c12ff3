//! Facts extracted from dialogue by an LLM (see `docs/memory.md`, *Extraction*):
//! the [`Fact`] type, the extractor prompt and a tolerant JSON parser.

mod parse;

use agcore_prompt::builtin::texts::MEMORY_EXTRACTION;
use serde::{Deserialize, Serialize};

use super::backend::DialogueTurn;
use super::entry::{MemoryEntry, MemoryType};
pub use parse::parse_facts;

/// One fact proposed by the extractor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fact {
    /// The fact, one self-contained sentence.
    pub content: String,
    /// Its kind.
    pub memory_type: MemoryType,
    /// Lowercased tags.
    pub tags: Vec<String>,
    /// The extractor's confidence, in `[0, 1]`.
    pub confidence: f64,
    /// The text of an existing memory this fact makes obsolete.
    pub replace: Option<String>,
}

impl Fact {
    /// A fact of `memory_type` with `content` and `confidence` (clamped to `[0, 1]`).
    pub fn new(content: impl Into<String>, memory_type: MemoryType, confidence: f64) -> Self {
        Self {
            content: content.into(),
            memory_type,
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

    /// Marks the fact as replacing the memory whose text is `old`.
    #[must_use]
    pub fn replacing(mut self, old: impl Into<String>) -> Self {
        self.replace = Some(old.into());
        self
    }
}

/// What [`parse_facts`] recovered from a model reply.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ParsedFacts {
    /// The valid facts, in reply order.
    pub facts: Vec<Fact>,
    /// Why each invalid element was skipped (`"fact 2: missing content"`).
    pub rejected: Vec<String>,
    /// The JSON was cut off; `facts` holds the complete elements before the cut.
    pub truncated: bool,
}

/// The system prompt asking a model for facts as JSON, given the buffered
/// `turns`, the scope's `existing` memories (so it can name one to replace)
/// and the most facts wanted; the instructions are the built-in
/// `memory.extraction` prompt ([`extractor_prompt_with`] takes others).
pub fn extractor_prompt(
    turns: &[DialogueTurn],
    existing: &[MemoryEntry],
    max_facts: usize,
) -> String {
    extractor_prompt_with(MEMORY_EXTRACTION, turns, existing, max_facts)
}

/// [`extractor_prompt`] with `instructions` (an overridden
/// `memory.extraction` prompt) in place of the built-in ones; the fact
/// limit, known memories and dialogue follow them.
pub fn extractor_prompt_with(
    instructions: &str,
    turns: &[DialogueTurn],
    existing: &[MemoryEntry],
    max_facts: usize,
) -> String {
    let mut out = String::from(instructions);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "- At most {max_facts} facts; {{\"facts\": []}} when nothing is worth keeping.\n"
    ));
    if !existing.is_empty() {
        out.push_str("\nKnown memories:\n");
        for e in existing {
            out.push_str(&format!("- [{}] {}\n", e.memory_type, e.content));
        }
    }
    out.push_str("\nDialogue:\n");
    for t in turns {
        out.push_str(&format!(
            "User: {}\nAssistant: {}\n",
            t.user_query, t.assistant_response
        ));
    }
    out
}
