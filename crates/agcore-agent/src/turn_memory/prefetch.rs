//! Prefetch: the memories injected into one turn's system prompt
//! (see `docs/memory.md`, *Prefetch*: the block and the injection rules).

use agcore_llm::tokens::TokenCounter;
use agcore_memory::MemoryError;
use agcore_memory::long_term::{MemoryEntry, ScopedMemory};

use super::LongTermOptions;
use super::prompt::{format_memory_context, memory_context_header};

/// What prefetch found for one turn.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Prefetched {
    /// The `<memory-context>` body (header and entries, without the tags).
    pub context: String,
    /// The entries it holds, best match first.
    pub entries: Vec<MemoryEntry>,
}

/// The scope's core memories ([`ScopedMemory::core`]: active, weight at or
/// above `core_threshold`, heaviest first), offered on every turn, followed
/// by the search of `scoped` with the user's `query` when the options allow
/// it for a session holding `prior_messages` messages; formats what fits the
/// token budget under the built-in preamble of the options' language. `None`
/// when prefetch is off, or no core memory exists and a rule says no or
/// nothing is found.
///
/// # Errors
/// The search's [`MemoryError`].
pub async fn prefetch(
    scoped: &ScopedMemory,
    options: &LongTermOptions,
    query: &str,
    prior_messages: usize,
) -> Result<Option<Prefetched>, MemoryError> {
    let header = memory_context_header(options.language);
    prefetch_with_header(scoped, options, header, query, prior_messages).await
}

/// [`prefetch`] with the block opening `header` (an overridden
/// `memory.context_preamble.*`, see [`super::memory_context_preamble`]).
///
/// # Errors
/// The search's [`MemoryError`].
pub async fn prefetch_with_header(
    scoped: &ScopedMemory,
    options: &LongTermOptions,
    header: &str,
    query: &str,
    prior_messages: usize,
) -> Result<Option<Prefetched>, MemoryError> {
    if !options.prefetch || options.prefetch_limit == 0 {
        return Ok(None);
    }
    let mut entries = scoped.core().await?;
    if options.inject.should_inject(query, prior_messages) {
        let hits = scoped.search(query, options.prefetch_limit).await?;
        for hit in hits {
            if !entries.iter().any(|e| e.id == hit.entry.id) {
                entries.push(hit.entry);
            }
        }
    }
    if entries.is_empty() {
        return Ok(None);
    }
    let counter = TokenCounter::estimate();
    Ok(
        format_memory_context(header, &entries, options.inject.token_budget, &counter)
            .map(|(context, entries)| Prefetched { context, entries }),
    )
}
