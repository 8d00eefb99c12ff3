//! Background fact extraction from the dialogue buffer (see
//! `docs/memory.md`, *Extraction*).

use std::sync::Arc;

use agcore_memory::long_term::{FactReport, ListOrder, ListRequest, ScopedMemory};

use super::facts::{ParsedFacts, extractor_prompt, extractor_prompt_with, screen_facts};
use agcore_llm::LlmProvider;

use super::LongTermOptions;
use super::structured::{FactRequest, request_facts};
use agcore_memory::MemoryError;

/// Most buffered turns one extraction reads.
pub const MAX_EXTRACTION_TURNS: usize = 50;
/// Most known memories shown to the extractor.
const KNOWN_MEMORIES: usize = 30;

/// What one extraction run did.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ExtractionReport {
    /// Buffered turns read.
    pub turns: usize,
    /// What applying the facts did.
    pub facts: FactReport,
    /// The reply was cut off: the complete facts were applied and the
    /// buffer kept, so a later run reads the turns again.
    pub truncated: bool,
    /// Turns marked applied.
    pub marked_applied: usize,
    /// The reply was constrained to the fact schema by a `response_format`
    /// the server accepted.
    pub structured: bool,
    /// The first reply did not parse and one repair request was made.
    pub repaired: bool,
}

/// One extraction run for `session_id`: reads the unapplied buffer, asks
/// `provider` (model `model`, within `options.extraction_timeout`) for facts
/// ([`extractor_prompt`]: instructions in the system message, the known
/// memories with their ids and the dialogue as JSON data in a user message),
/// refuses those [`screen_facts`] refuses (a `replace` naming no memory the
/// request showed; an instruction repeated from a tool result of the
/// conversation), applies those of confidence ≥
/// `options.extract.min_confidence` and marks the turns applied. On any
/// failure the buffer is kept for a later run.
///
/// The request asks for the fact JSON Schema as `response_format` as
/// `options.extract.structured_output` says, moving to a less constrained
/// format when the server refuses one (remembered by the clones of
/// `options`); a reply that does not parse gets one repair request.
///
/// # Errors
/// [`MemoryError`] for storage failures and replies that are not fact JSON;
/// [`MemoryError::Llm`] when the request fails; [`MemoryError::Timeout`] on
/// timeout.
pub async fn run_extraction(
    scoped: ScopedMemory,
    session_id: String,
    provider: Arc<dyn LlmProvider>,
    model: String,
    options: LongTermOptions,
) -> Result<ExtractionReport, MemoryError> {
    let turns = scoped
        .buffer_pending(&session_id, MAX_EXTRACTION_TURNS)
        .await?;
    let Some(last) = turns.last().map(|t| t.id) else {
        return Ok(ExtractionReport::default());
    };
    let known = scoped
        .list(
            &ListRequest::all()
                .order(ListOrder::Weight)
                .limit(KNOWN_MEMORIES),
        )
        .await?;
    let max_facts = options.extract.max_facts.max(1);
    let prompt = match &options.extraction_instructions {
        Some(instructions) => extractor_prompt_with(instructions, &turns, &known, max_facts),
        None => extractor_prompt(&turns, &known, max_facts),
    };
    let (parsed, outcome) = request_facts(FactRequest {
        provider: &provider,
        model: &model,
        prompt: &prompt,
        max_facts,
        mode: options.extract.structured_output,
        state: &options.format_state,
        timeout: options.extraction_timeout,
    })
    .await?;
    let mut parsed = parsed;
    admit_facts(&mut parsed, &prompt.known_ids, &options);
    let truncated = parsed.truncated;
    let mut facts = scoped
        .apply_facts(parsed.facts, options.extract.min_confidence)
        .await?;
    facts.rejected.extend(parsed.rejected);
    let marked_applied = if truncated {
        0
    } else {
        scoped.buffer_mark_applied(&session_id, last).await?
    };
    Ok(ExtractionReport {
        turns: turns.len(),
        facts,
        truncated,
        marked_applied,
        structured: outcome.structured,
        repaired: outcome.repaired,
    })
}

/// Screens the parsed facts (ids not shown, instruction-like lines), refuses
/// those of types the agent may not write, and sets their tags by
/// `auto_tag`; every refusal goes to `parsed.rejected`.
fn admit_facts(parsed: &mut ParsedFacts, known_ids: &[i64], options: &LongTermOptions) {
    let writable = &options.writable_types;
    let (facts, screened) = screen_facts(
        std::mem::take(&mut parsed.facts),
        known_ids,
        &options.tool_lines,
    );
    parsed.rejected.extend(screened);
    let (facts, refused): (Vec<_>, Vec<_>) = facts
        .into_iter()
        .partition(|fact| writable.allows(fact.memory_type));
    parsed.facts = facts;
    for fact in &mut parsed.facts {
        // `auto_tag`: the model's tags, or by rule when it gave none; off: none.
        if !options.extract.auto_tag {
            fact.tags.clear();
        } else if fact.tags.is_empty() {
            fact.tags = agcore_memory::long_term::rule_tags(
                &fact.content,
                agcore_memory::long_term::RULE_TAGS,
            );
        }
    }
    parsed.rejected.extend(
        refused
            .iter()
            .filter_map(|fact| writable.refusal(fact.memory_type)),
    );
}
