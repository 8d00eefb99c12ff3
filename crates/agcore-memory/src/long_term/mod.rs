//! Long-term memory per (agent, user): memories that survive sessions.
//!
//! `docs/memory.md` (*Long-term memory*) describes the model: entries and
//! types, scopes, weights, usage log, archiving, dialogue buffer, fact
//! extraction, `[memory]` configuration and the table layout.
//!
//! - [`LongTermMemory`] wraps a [`LongTermBackend`] — [`InMemoryLongTerm`] or
//!   `SqliteLongTerm` (crate `agcore-memory-sqlite`) — and hands out [`ScopedMemory`]
//!   handles. Every operation of a handle is confined to its
//!   [`MemoryScope`]: another scope's ids behave as missing.
//! - Write path without duplicates: a save whose [`content_key`] matches an
//!   entry of the scope updates it; [`ScopedMemory::supersede`], updates and
//!   deletes keep the old text in the [history](ScopedMemory::history).
//! - Search: BM25 over name, content and description: English words stemmed,
//!   CJK text as character bigrams
//!   ([`index_terms`](crate::retriever::index_terms)).
//! - Weights ([`WeightRules`]): raised when a reply referenced a memory
//!   ([`detect_references`]), decayed when not and with age; archived below a
//!   threshold by [`ScopedMemory::maintenance`], which also supersedes near
//!   duplicates ([`near_duplicates`]); [`LongTermMemory::spawn_maintenance`]
//!   runs it over every scope on a schedule.
//! - Dialogue buffer and facts: [`ScopedMemory::buffer_append`] per session,
//!   [`ScopedMemory::apply_facts`] for the [`Fact`]s an extractor proposed
//!   (the extraction request, the parser of model replies and the per-turn
//!   steps are `agcore-agent`'s, in `agcore_agent::turn_memory`).
//! - Configuration: [`MemorySettings::from_toml_str`] (`[memory]`,
//!   `[memory_agent]`).
//!
//! # Examples
//! ```
//! use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemoryType, NewMemory};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), agcore_memory::MemoryError> {
//! let memory = LongTermMemory::new(InMemoryLongTerm::new());
//! let alice = memory.scope("assistant", "alice")?;
//! let tea = alice.save(NewMemory::new(MemoryType::User, "drink", "Alice prefers green tea")).await?.entry;
//! let hits = alice.search("what tea does she like", 5).await?;
//! assert_eq!(hits[0].entry.id, tea.id);
//! // The reply used it: the weight rises (1.0 + 0.5).
//! alice.record_use("session-1", "tea", &[tea.id], true).await?;
//! assert_eq!(alice.get(tea.id).await?.map(|e| e.weight), Some(1.5));
//! # Ok(()) }
//! ```

pub mod apply;
mod apply_facts;
mod backend;
mod changes;
pub mod columns;
mod config;
mod dedupe;
mod dense;
mod dense_index;
mod entry;
mod fact;
mod in_memory;
mod limits;
mod maintain;
mod memory;
mod normalize;
mod records;
mod reembed;
mod requests;
mod schedule;
mod scope;
mod scope_ids;
mod scoped;
pub mod sql;
mod tags;
pub mod upkeep;
mod weights;

pub use apply_facts::{FactReport, detect_references};
pub use backend::{
    ArchivedFilter, DialogueTurn, HistoryEntry, HistoryReason, ListOrder, ListRequest,
    LongTermBackend, MaintenanceReport, SaveOutcome, ScoredEntry, SearchRequest, UsageLogRow,
    UsageRecord,
};
pub use changes::{MemoryUpdate, NewMemory};
pub use config::{
    AgentMemoryConfig, BACKEND_WORDS, BackendKind, ExtractConfig, InjectConfig,
    InstructionLanguage, LongTermConfig, LongTermTrigger, MemoryAgentConfig, MemoryConfig,
    MemorySettings, ShortTermConfig, StructuredOutput, SummarizeConfig, needs_memory,
    parse_duration, suggest,
};
pub use dedupe::{DEFAULT_DEDUPE_THRESHOLD, Duplicate, TermSet, near_duplicates};
pub use dense_index::{LongTermDense, scope_namespace};
pub use entry::{MAX_ENTRY_CONTENT_BYTES, MemoryEntry, MemoryType, entries_in_order};
pub use fact::{FACT_TYPE_KEY, Fact};
pub use in_memory::{InMemoryLongTerm, LongTermSnapshot, ScopeSnapshot, TurnSnapshot};
pub use limits::{
    MAX_ENTRY_DESCRIPTION_BYTES, MAX_ENTRY_METADATA_BYTES, MAX_ENTRY_NAME_BYTES, MAX_ENTRY_TAGS,
    MAX_QUERY_BYTES, MAX_TAG_BYTES, clip_query,
};
pub use maintain::{SUPERSEDED_BY_KEY, supersede_update};
pub use memory::LongTermMemory;
pub use normalize::{content_key, derive_name, normalize_tags};
pub use schedule::{MaintenanceSchedule, MaintenanceTask};
pub use scope::{MAX_SCOPE_PART_BYTES, MemoryScope, RESERVED_AGENT_CHARS};
pub use scope_ids::ScopeIds;
pub use scoped::{MAX_SESSION_BYTES, ScopedMemory, import_scopes};
pub use tags::{RULE_TAGS, rule_tags};
pub use weights::{MIN_DECAY, WeightRules};
