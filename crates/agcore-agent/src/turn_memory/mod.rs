//! The long-term memory steps of a conversation's turns, owned by one type,
//! [`TurnMemory`]: prefetch into the `<memory-context>` block before a turn;
//! usage feedback, the dialogue buffer and background fact extraction after
//! it; the last extraction when the conversation ends (see `docs/memory.md`,
//! *Prefetch* and *Extraction*). [`LongTermOptions`] says how; the prompt
//! texts are named templates of `agcore_prompt::builtin`, overridable by
//! name. The agent runtime ([`AgentSession`](crate::AgentSession)) drives
//! these steps and adds the `memory_save` / `memory_recall` tools.
//!
//! The fact extraction request ([`extractor_prompt`]), the parser of model
//! replies ([`parse_facts`]) and the screen of extracted facts
//! ([`screen_facts`]) live here too; `agcore-memory` keeps the pure memory
//! side: the [`Fact`](agcore_memory::long_term::Fact) type and
//! [`ScopedMemory::apply_facts`](agcore_memory::long_term::ScopedMemory::apply_facts).
//! Everything here is re-exported by [`crate::long_term`].

mod extract;
mod extraction_steps;
mod facts;
mod feedback;
mod memory;
mod options;
mod prefetch;
mod prompt;
mod short_term;
mod structured;
mod writable;

pub use agcore_memory::long_term::InstructionLanguage;
pub use extract::{ExtractionReport, MAX_EXTRACTION_TURNS, run_extraction};
pub use facts::{
    ExtractionPrompt, MAX_FACT_CHARS, ParsedFacts, extractor_prompt, extractor_prompt_with,
    facts_json_schema, instruction_like, parse_facts, screen_facts,
};
pub use feedback::{RECALL_TOOL, recalled_ids};
pub use memory::{ExtractionModel, TurnMemory};
pub use options::LongTermOptions;
pub use prefetch::{Prefetched, prefetch, prefetch_with_header};
pub use prompt::{
    MEMORY_CONTEXT_HEADER_EN, MEMORY_CONTEXT_HEADER_ZH, MEMORY_CONTEXT_PREAMBLE_EN,
    MEMORY_CONTEXT_PREAMBLE_ZH, MEMORY_INSTRUCTIONS_EN, MEMORY_INSTRUCTIONS_ZH,
    format_memory_context, memory_context_header, memory_context_preamble, memory_instructions,
    render_memory_instructions, short_term_header,
};
pub use writable::WritableTypes;
