//! Facts extracted from dialogue by an LLM (see `docs/memory.md`, *Extraction*):
//! the [`Fact`] type, the extraction request, a tolerant JSON parser and the
//! screen a fact passes before it is written.

mod element;
mod parse;
mod screen;

use agcore_prompt::builtin::texts::MEMORY_EXTRACTION;
use agcore_prompt::untrusted::json_data;
use agcore_types::ChatMessage;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::backend::DialogueTurn;
use super::entry::{MemoryEntry, MemoryType};
pub use parse::parse_facts;
pub(crate) use screen::instruction_lines;
pub use screen::{instruction_like, screen_facts};

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

/// The fact-extraction request: the instructions as the system message and
/// the data — the scope's known memories, each with its id, and the buffered
/// dialogue — as a user message of JSON
/// ([`agcore_prompt::untrusted::json_data`]: no string in it can close a
/// block or start a line of the prompt).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtractionPrompt {
    /// The system message: the instructions and the fact limit.
    pub system: String,
    /// The user message: `{"known_memories": [{"id", "type", "content"}],
    /// "dialogue": [{"user", "assistant"}]}` as JSON.
    pub data: String,
    /// The ids of the known memories shown: the only ones a fact may
    /// `replace`.
    pub known_ids: Vec<i64>,
}

impl ExtractionPrompt {
    /// The request's messages: the system message, then the data.
    pub fn messages(&self) -> Vec<ChatMessage> {
        vec![
            ChatMessage::system(self.system.clone()),
            ChatMessage::user(self.data.clone()),
        ]
    }
}

/// The extraction request for the buffered `turns`, the scope's `existing`
/// memories (so the model can name one to replace, by id) and the most facts
/// wanted; the instructions are the built-in `memory.extraction` prompt
/// ([`extractor_prompt_with`] takes others).
pub fn extractor_prompt(
    turns: &[DialogueTurn],
    existing: &[MemoryEntry],
    max_facts: usize,
) -> ExtractionPrompt {
    extractor_prompt_with(MEMORY_EXTRACTION, turns, existing, max_facts)
}

/// [`extractor_prompt`] with `instructions` (an overridden
/// `memory.extraction` prompt) in place of the built-in ones; the fact
/// limit follows them in the system message. A memory's `type` is the one
/// the extractor gave it when it was finer than the stored type
/// (`preference`, `fact`; see [`FACT_TYPE_KEY`]).
pub fn extractor_prompt_with(
    instructions: &str,
    turns: &[DialogueTurn],
    existing: &[MemoryEntry],
    max_facts: usize,
) -> ExtractionPrompt {
    let mut system = String::from(instructions);
    if !system.ends_with('\n') {
        system.push('\n');
    }
    system.push_str(&format!(
        "- At most {max_facts} facts; {{\"facts\": []}} when nothing is worth keeping.\n"
    ));
    let known: Vec<Value> = existing
        .iter()
        .map(|e| json!({"id": e.id, "type": shown_type(e), "content": e.content}))
        .collect();
    let dialogue: Vec<Value> = turns
        .iter()
        .map(|t| json!({"user": t.user_query, "assistant": t.assistant_response}))
        .collect();
    ExtractionPrompt {
        system,
        data: json_data(&json!({"known_memories": known, "dialogue": dialogue})),
        known_ids: existing.iter().map(|e| e.id).collect(),
    }
}

/// The type word the extractor is shown for `entry`: the one it gave
/// (kept in the metadata) when that maps to the stored type, else the
/// stored type.
fn shown_type(entry: &MemoryEntry) -> String {
    entry
        .metadata
        .get(FACT_TYPE_KEY)
        .and_then(Value::as_str)
        .filter(|word| MemoryType::parse(word).ok() == Some(entry.memory_type))
        .map_or_else(|| entry.memory_type.to_string(), str::to_owned)
}
