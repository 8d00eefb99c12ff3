//! Long-term memory in the agent runtime (see `docs/memory.md`,
//! *Long-term memory*): the `memory_save` / `memory_recall` tools here, and
//! the steps of each turn — prefetch into the system prompt, the dialogue
//! buffer and background fact extraction — owned by
//! [`TurnMemory`] of [`crate::turn_memory`], re-exported here with its
//! options and the fact extraction helpers.
//!
//! Turned on for every session of a bundle by
//! [`AgentBuilder::long_term_memory`](crate::AgentBuilder::long_term_memory).
//! The scope of every call is (agent name, user id) of the session
//! ([`AgentSession::with_user_id`](crate::AgentSession::with_user_id)); a
//! session without a user id uses no long-term memory and the tools fail.
//!
//! # Examples
//! ```
//! use std::sync::Arc;
//!
//! use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
//! use agcore_llm::{HookExecutor, MockProvider};
//! use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemoryType, NewMemory};
//! use agcore_tools::ToolRegistry;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let memory = LongTermMemory::new(InMemoryLongTerm::new());
//! let alice = memory.scope("assistant", "alice")?;
//! alice.save(NewMemory::new(MemoryType::User, "drink", "Alice prefers green tea")).await?;
//!
//! let provider = Arc::new(MockProvider::new().push_text("Hi").push_text("Green tea!"));
//! let bundle = AgentBuilder::new()
//!     .provider(provider.clone())
//!     .tool_registry(Arc::new(ToolRegistry::new()))
//!     .hook_executor(Arc::new(HookExecutor::new()))
//!     .config(AgentConfig::new("m"))
//!     .long_term_memory(memory, LongTermOptions::new().extraction(false))
//!     .build()?;
//! assert!(bundle.tool_registry.contains("memory_save"));
//! let agent = Arc::new(SimpleAgent::new("assistant"));
//! let mut session = AgentSession::new(agent, bundle).with_user_id("alice")?;
//! session.submit_turn("Hello there").await?; // the first round injects nothing
//! session.submit_turn("Which tea do I like?").await?;
//! let system = provider.requests()[1].messages[0].text();
//! assert!(system.contains("[user] drink\n> Alice prefers green tea"));
//! # Ok(()) }
//! ```

mod tools;

pub use crate::turn_memory::{
    ExtractionModel, ExtractionPrompt, ExtractionReport, InstructionLanguage, LongTermOptions,
    MAX_EXTRACTION_TURNS, MAX_FACT_CHARS, MEMORY_CONTEXT_HEADER_EN, MEMORY_CONTEXT_HEADER_ZH,
    MEMORY_CONTEXT_PREAMBLE_EN, MEMORY_CONTEXT_PREAMBLE_ZH, MEMORY_INSTRUCTIONS_EN,
    MEMORY_INSTRUCTIONS_ZH, ParsedFacts, Prefetched, TurnMemory, WritableTypes, extractor_prompt,
    extractor_prompt_with, facts_json_schema, format_memory_context, instruction_like,
    memory_context_header, memory_context_preamble, memory_instructions, parse_facts, prefetch,
    prefetch_with_header, render_memory_instructions, run_extraction, screen_facts,
};
pub use tools::{
    MAX_RECALL_LIMIT, MemoryRecallTool, MemorySaveTool, RecallArgs, SaveAction, SaveArgs,
};

use agcore_memory::long_term::LongTermMemory;

/// Long-term memory as a bundle holds it: the store and how sessions use it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LongTermRuntime {
    /// The store shared by all sessions (each confined to its scope).
    pub memory: LongTermMemory,
    /// Prefetch, buffer and extraction settings.
    pub options: LongTermOptions,
}

impl LongTermRuntime {
    /// `memory` used with `options`.
    pub fn new(memory: LongTermMemory, options: LongTermOptions) -> Self {
        Self { memory, options }
    }
}
