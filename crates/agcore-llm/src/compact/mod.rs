//! Context compaction: keeping a conversation inside the model's context window.
//!
//! Two steps, cheapest first:
//! 1. [`microcompact`] replaces the content of old tool results (outside the
//!    last [`CompactConfig::keep_recent`] messages) with a short marker saying
//!    what was removed. No model call, idempotent.
//! 2. `summarize` (feature `chat`) asks an `LlmProvider` to summarise the
//!    older part of the conversation and replaces it with one summary message,
//!    keeping the leading system prompt and the recent messages.
//!
//! [`should_compact`] decides when: when the prompt's token count (see
//! [`crate::tokens`]) exceeds `context_window - reserved_tokens`.
//!
//! Without the `chat` feature this module is pure data and functions over
//! `ChatMessage`s: no HTTP stack, no prompt texts and no chat model, which is
//! how `agcore-memory` uses it.
//!
//! # Examples
//!
//! ```
//! use agcore_llm::compact::{CompactConfig, microcompact, should_compact};
//! use agcore_llm::types::{ChatMessage, ToolCall};
//!
//! let mut messages = vec![
//!     ChatMessage::user("read the log"),
//!     ChatMessage::assistant_tool_calls(vec![ToolCall::new("c1", "read_file", "{}")]),
//!     ChatMessage::tool("c1", "x".repeat(10_000)),
//!     ChatMessage::assistant("The log is long."),
//!     ChatMessage::user("thanks"),
//! ];
//! let config = CompactConfig::new(2_000, 500, 2);
//! assert!(should_compact(&messages, &config));
//! assert_eq!(microcompact(&mut messages, &config), 1);
//! assert_eq!(
//!     messages[2].text(),
//!     "[tool result of `read_file` removed by microcompact: 10000 chars]"
//! );
//! assert!(!should_compact(&messages, &config));
//! ```

mod micro;
#[cfg(feature = "chat")]
mod summary;

pub use micro::{is_microcompact_marker, microcompact};
#[cfg(feature = "chat")]
pub use summary::{SUMMARY_INSTRUCTION, SUMMARY_PREFIX, SummaryOutcome, summarize, summary_split};

use agcore_types::ChatMessage;

use crate::tokens::TokenCounter;

/// When and how much to compact.
///
/// Token figures are in tokens of the model the conversation is sent to
/// (counted with [`TokenCounter::for_model`] on [`CompactConfig::model`], or
/// estimated when no model is set).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactConfig {
    /// The model's context window, in tokens (prompt + completion).
    pub context_window: usize,
    /// Tokens kept free for the completion and for messages added before the
    /// next check; compaction starts when the prompt exceeds
    /// `context_window - reserved_tokens`.
    pub reserved_tokens: usize,
    /// How many of the most recent messages compaction never touches.
    pub keep_recent: usize,
    /// The model whose tokenizer counts the tokens; `None` uses the estimate
    /// of [`crate::tokens::estimate_text_tokens`].
    pub model: Option<String>,
    /// The system message of summary requests; `None` (default) sends the
    /// built-in `compaction.summary` prompt ([`SUMMARY_INSTRUCTION`]).
    pub summary_instruction: Option<String>,
    /// Whether the second step, [`summarize`], may run (default `true`);
    /// `false` compacts by [`microcompact`] alone, with no model call.
    pub summarize: bool,
    /// Prompt size (tokens) above which the summary step runs; `None`
    /// (default) uses [`Self::threshold`], the microcompaction threshold.
    pub summary_threshold: Option<usize>,
}

impl CompactConfig {
    /// A config with the given window, reserve (tokens) and number of recent
    /// messages to keep; tokens are estimated until [`Self::with_model`] is set.
    pub fn new(context_window: usize, reserved_tokens: usize, keep_recent: usize) -> Self {
        Self {
            context_window,
            reserved_tokens,
            keep_recent,
            model: None,
            summary_instruction: None,
            summarize: true,
            summary_threshold: None,
        }
    }

    /// Turns the summary step on or off (off: microcompaction only).
    pub fn with_summarize(mut self, summarize: bool) -> Self {
        self.summarize = summarize;
        self
    }

    /// Runs the summary step only above `tokens` (instead of
    /// [`Self::threshold`]); microcompaction still starts at the threshold.
    pub fn with_summary_threshold(mut self, tokens: usize) -> Self {
        self.summary_threshold = Some(tokens);
        self
    }

    /// The prompt size (tokens) above which the summary step runs, when
    /// [`Self::summarize`] is on: [`Self::summary_threshold`], else
    /// [`Self::threshold`].
    pub fn summary_trigger(&self) -> usize {
        self.summary_threshold.unwrap_or_else(|| self.threshold())
    }

    /// Sends `instruction` as the system message of summary requests
    /// instead of the built-in `compaction.summary` prompt.
    pub fn with_summary_instruction(mut self, instruction: impl Into<String>) -> Self {
        self.summary_instruction = Some(instruction.into());
        self
    }

    /// Counts tokens with `model`'s tokenizer (exact for OpenAI models).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The prompt size (tokens) above which [`should_compact`] says yes:
    /// `context_window - reserved_tokens` (saturating at 0).
    pub fn threshold(&self) -> usize {
        self.context_window.saturating_sub(self.reserved_tokens)
    }

    /// The token counter this config uses.
    pub fn token_counter(&self) -> TokenCounter {
        self.model
            .as_deref()
            .map_or_else(TokenCounter::estimate, TokenCounter::for_model)
    }

    /// Tokens of `messages` as a prompt, counted with [`Self::token_counter`].
    pub fn count_tokens(&self, messages: &[ChatMessage]) -> usize {
        self.token_counter().count_messages(messages)
    }
}

impl Default for CompactConfig {
    /// A 128 000-token window, 16 384 tokens reserved, the last 10 messages kept.
    fn default() -> Self {
        Self::new(128_000, 16_384, 10)
    }
}

/// Whether `messages` (as one prompt) exceed `config.threshold()` tokens.
pub fn should_compact(messages: &[ChatMessage], config: &CompactConfig) -> bool {
    config.count_tokens(messages) > config.threshold()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_saturates() {
        assert_eq!(CompactConfig::new(100, 30, 2).threshold(), 70);
        assert_eq!(CompactConfig::new(100, 300, 2).threshold(), 0);
        assert_eq!(CompactConfig::default().keep_recent, 10);
    }

    #[test]
    fn should_compact_at_threshold() {
        let messages = vec![ChatMessage::user("abcd".repeat(100))];
        let tokens = CompactConfig::new(0, 0, 0).count_tokens(&messages);
        assert_eq!(tokens, 3 + 1 + 100 + 3);
        assert!(!should_compact(
            &messages,
            &CompactConfig::new(tokens, 0, 0)
        ));
        assert!(should_compact(
            &messages,
            &CompactConfig::new(tokens - 1, 0, 0)
        ));
        assert!(should_compact(
            &messages,
            &CompactConfig::new(tokens + 10, 11, 0)
        ));
    }
}
