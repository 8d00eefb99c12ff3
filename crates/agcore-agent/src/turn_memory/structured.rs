//! The extraction request with structured output: the fact schema as
//! `response_format` (falling back when the server refuses it), and one
//! repair request when the reply still does not parse.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agcore_memory::long_term::StructuredOutput;

use super::facts::{ExtractionPrompt, ParsedFacts, facts_json_schema, parse_facts};
use agcore_llm::{LlmError, LlmProvider};
use agcore_types::{ChatMessage, ChatRequest, ResponseFormat};

use agcore_memory::MemoryError;

/// Which rung of the format ladder the server accepted last; shared by the
/// clones of one [`super::LongTermOptions`], so a refused format is not
/// tried again on every run.
#[derive(Debug, Clone, Default)]
pub(crate) struct FormatState(Arc<AtomicUsize>);

/// How one extraction request went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RequestOutcome {
    /// The reply was constrained by a `response_format`.
    pub structured: bool,
    /// The first reply did not parse and a repair request was made.
    pub repaired: bool,
}

/// The extraction request's settings.
pub(crate) struct FactRequest<'a> {
    pub provider: &'a Arc<dyn LlmProvider>,
    pub model: &'a str,
    pub prompt: &'a ExtractionPrompt,
    pub max_facts: usize,
    pub mode: StructuredOutput,
    pub state: &'a FormatState,
    pub timeout: Duration,
}

/// The formats to try, most constrained first; `None` is no constraint.
fn ladder(mode: StructuredOutput, max_facts: usize) -> Vec<Option<ResponseFormat>> {
    let schema = facts_json_schema(max_facts);
    let json_schema = ResponseFormat::JsonSchema {
        json_schema: serde_json::json!({"name": "facts", "strict": true, "schema": schema}),
    };
    let json_object = ResponseFormat::JsonObject {
        schema: Some(schema),
    };
    match mode {
        StructuredOutput::JsonSchema => vec![Some(json_schema), Some(json_object), None],
        StructuredOutput::JsonObject => vec![Some(json_object), None],
        _ => vec![None],
    }
}

/// Whether `err` is a server refusing the `response_format` it was sent
/// (unknown type, unsupported field), as opposed to any other failure.
fn refuses_format(err: &MemoryError) -> bool {
    let text = match err {
        MemoryError::Llm(LlmError::InvalidRequest { message })
        | MemoryError::Llm(LlmError::Server { message, .. }) => message,
        MemoryError::Llm(LlmError::Http { body, .. }) => body,
        _ => return false,
    };
    text.contains("response_format") || text.contains("json_schema")
}

/// Asks for facts and parses them: tries the formats of `request.mode` from
/// the one that worked last, then repairs once when the reply does not parse.
///
/// # Errors
/// The request's errors ([`MemoryError::Llm`], [`MemoryError::Timeout`]);
/// the parse error of [`parse_facts`] when the repaired reply still is not
/// fact JSON.
pub(crate) async fn request_facts(
    request: FactRequest<'_>,
) -> Result<(ParsedFacts, RequestOutcome), MemoryError> {
    let formats = ladder(request.mode, request.max_facts);
    let first = request
        .state
        .0
        .load(Ordering::Relaxed)
        .min(formats.len() - 1);
    let mut messages = request.prompt.messages();
    let mut last_err = None;
    for (rung, format) in formats.iter().enumerate().skip(first) {
        match call(&request, &messages, format.clone()).await {
            Ok(reply) => {
                request.state.0.store(rung, Ordering::Relaxed);
                let mut outcome = RequestOutcome {
                    structured: format.is_some(),
                    repaired: false,
                };
                let parsed = match parse_facts(&reply) {
                    Ok(parsed) => parsed,
                    Err(err) => {
                        outcome.repaired = true;
                        messages.push(ChatMessage::assistant(reply));
                        messages.push(ChatMessage::user(repair_prompt(&err.to_string())));
                        let again = call(&request, &messages, format.clone()).await?;
                        parse_facts(&again)?
                    }
                };
                return Ok((parsed, outcome));
            }
            Err(err) if format.is_some() && refuses_format(&err) => {
                tracing::warn!(error = %err, "fact extraction: the server refused the response format; trying the next");
                last_err = Some(err);
            }
            Err(err) => return Err(err),
        }
    }
    Err(last_err.unwrap_or_else(|| {
        MemoryError::InvalidInput("fact extraction: no request was made".into())
    }))
}

/// The follow-up message after a reply that is not fact JSON.
fn repair_prompt(error: &str) -> String {
    format!(
        "That reply could not be read ({error}). Reply again with only the JSON object \
         {{\"facts\": [...]}} as described, and nothing else."
    )
}

async fn call(
    request: &FactRequest<'_>,
    messages: &[ChatMessage],
    format: Option<ResponseFormat>,
) -> Result<String, MemoryError> {
    let mut chat = ChatRequest::new(request.model.to_owned(), messages.to_vec());
    chat.response_format = format;
    chat.max_tokens = Some(reply_token_budget(request.max_facts));
    let response = tokio::time::timeout(request.timeout, request.provider.chat(chat))
        .await
        .map_err(|_| {
            MemoryError::Timeout(format!(
                "fact extraction got no reply within {:?}",
                request.timeout
            ))
        })??;
    Ok(response.text())
}

/// Completion tokens allowed for a reply of up to `max_facts` facts: room for
/// each fact at its longest, so only a runaway reply is cut (and its complete
/// facts are still read).
fn reply_token_budget(max_facts: usize) -> u32 {
    let per_fact = 160;
    u32::try_from(64 + per_fact * max_facts.max(1))
        .unwrap_or(u32::MAX)
        .min(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladders_go_from_most_to_least_constrained() {
        let rungs = ladder(StructuredOutput::JsonSchema, 3);
        assert!(matches!(rungs[0], Some(ResponseFormat::JsonSchema { .. })));
        assert!(matches!(
            rungs[1],
            Some(ResponseFormat::JsonObject { schema: Some(_) })
        ));
        assert_eq!(rungs[2], None);
        assert_eq!(ladder(StructuredOutput::Off, 3), vec![None]);
        assert_eq!(reply_token_budget(10), 1664);
    }

    #[test]
    fn only_format_refusals_move_down_the_ladder() {
        let refused = MemoryError::Llm(LlmError::Server {
            status: 500,
            message: "('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"
                .into(),
        });
        assert!(refuses_format(&refused));
        let other = MemoryError::Llm(LlmError::Server {
            status: 503,
            message: "overloaded".into(),
        });
        assert!(!refuses_format(&other));
    }
}
