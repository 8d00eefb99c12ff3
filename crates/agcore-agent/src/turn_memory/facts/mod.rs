//! Facts extracted from dialogue by an LLM (see `docs/memory.md`, *Extraction*):
//! the extraction request, a tolerant JSON parser and the screen a fact
//! passes before it is written. The [`Fact`] type itself is
//! `agcore-memory`'s, which applies facts
//! ([`ScopedMemory::apply_facts`](agcore_memory::long_term::ScopedMemory::apply_facts)).

mod element;
mod parse;
mod schema;
mod screen;

use agcore_memory::long_term::{DialogueTurn, FACT_TYPE_KEY, Fact, MemoryEntry, MemoryType};
use agcore_prompt::builtin::texts::MEMORY_EXTRACTION;
use agcore_prompt::untrusted::json_data;
use agcore_types::ChatMessage;
use serde_json::{Value, json};

pub use parse::parse_facts;
pub use schema::{MAX_FACT_CHARS, facts_json_schema};
pub(crate) use screen::instruction_lines;
pub use screen::{instruction_like, screen_facts};

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
