//! Background fact extraction from the dialogue buffer (see
//! `docs/memory.md`, *Extraction*).

use std::sync::Arc;

use agcore_llm::LlmProvider;
use agcore_memory::long_term::{
    FactReport, ListOrder, ListRequest, ScopedMemory, extractor_prompt, parse_facts,
};
use agcore_types::{ChatMessage, ChatRequest};

use super::LongTermOptions;
use crate::AgentError;

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
}

/// One extraction run for `session_id`: reads the unapplied buffer, asks
/// `provider` (model `model`, within `options.extraction_timeout`) for facts,
/// applies those of confidence ≥ `options.extract.min_confidence` and marks
/// the turns applied. On any failure the buffer is kept for a later run.
///
/// # Errors
/// [`AgentError::Memory`] for storage failures and replies that are not fact
/// JSON; [`AgentError::Llm`] when the request fails;
/// [`AgentError::LimitExceeded`] on timeout.
pub async fn run_extraction(
    scoped: ScopedMemory,
    session_id: String,
    provider: Arc<dyn LlmProvider>,
    model: String,
    options: LongTermOptions,
) -> Result<ExtractionReport, AgentError> {
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
    let prompt = extractor_prompt(&turns, &known, options.extract.max_facts.max(1));
    let request = ChatRequest::new(
        model,
        vec![
            ChatMessage::system(prompt),
            ChatMessage::user("Extract the facts as JSON."),
        ],
    );
    let response = tokio::time::timeout(options.extraction_timeout, provider.chat(request))
        .await
        .map_err(|_| {
            AgentError::LimitExceeded(format!(
                "fact extraction got no reply within {:?}",
                options.extraction_timeout
            ))
        })??;
    let parsed = parse_facts(&response.text())?;
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
    })
}
