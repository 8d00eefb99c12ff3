//! The long-term memory steps of a conversation's turns, owned by one type,
//! [`TurnMemory`]: prefetch into the `<memory-context>` block before a turn;
//! usage feedback, the dialogue buffer and background fact extraction after
//! it; the last extraction when the conversation ends (see `docs/memory.md`,
//! *Prefetch* and *Extraction*). [`LongTermOptions`] says how; the prompt
//! texts are named templates of `agcore_prompt::builtin`, overridable by
//! name. The agent runtime (`agcore-agent`'s `AgentSession`) drives these
//! steps and adds the `memory_save` / `memory_recall` tools.

mod extract;
mod extraction_steps;
mod feedback;
mod memory;
mod options;
mod prefetch;
mod prompt;
mod short_term;
mod structured;
mod writable;

pub use extract::{ExtractionReport, MAX_EXTRACTION_TURNS, run_extraction};
pub use feedback::{RECALL_TOOL, recalled_ids};
pub use memory::{ExtractionModel, TurnMemory};
pub use options::{InstructionLanguage, LongTermOptions};
pub use prefetch::{Prefetched, prefetch, prefetch_with_header};
pub use prompt::{
    MEMORY_CONTEXT_HEADER_EN, MEMORY_CONTEXT_HEADER_ZH, MEMORY_CONTEXT_PREAMBLE_EN,
    MEMORY_CONTEXT_PREAMBLE_ZH, MEMORY_INSTRUCTIONS_EN, MEMORY_INSTRUCTIONS_ZH,
    format_memory_context, memory_context_header, memory_context_preamble, memory_instructions,
    render_memory_instructions, short_term_header,
};
pub use writable::WritableTypes;
