//! Token counting for prompts and messages.
//!
//! Models OpenAI publishes a tokenizer for (`gpt-4o*`, `gpt-4.1*`, `gpt-5*`,
//! `o1`/`o3`/`o4-mini` → `o200k_base`; `gpt-4*`, `gpt-3.5-turbo*` →
//! `cl100k_base`; `gpt-oss*` → `o200k_harmony`) are counted exactly with the
//! BPE tables of [`tiktoken-rs`](https://docs.rs/tiktoken-rs). Every other model
//! (Qwen, DeepSeek, Llama, SmolLM, …) gets a documented estimate, see
//! [`estimate_text_tokens`].
//!
//! Whole messages add the framing overhead of the OpenAI cookbook's counting rule
//! ("How to count tokens with tiktoken",
//! <https://github.com/openai/openai-cookbook/blob/main/examples/How_to_count_tokens_with_tiktoken.ipynb>):
//! 3 tokens per message, 1 more when a `name` is set, and 3 once for the
//! reply priming (`<|start|>assistant<|message|>`).

use std::fmt;

use agcore_types::{ChatMessage, ContentPart, MessageContent};
use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

/// Framing tokens added per message (OpenAI cookbook counting rule).
pub const TOKENS_PER_MESSAGE: usize = 3;
/// Extra token when a message carries a `name` (OpenAI cookbook counting rule).
pub const TOKENS_PER_NAME: usize = 1;
/// Tokens priming every reply with `<|start|>assistant<|message|>` (counted once).
pub const REPLY_PRIMING_TOKENS: usize = 3;
/// Extra tokens counted per tool call (its framing inside the assistant message).
pub const TOKENS_PER_TOOL_CALL: usize = 1;
/// Tokens counted for one image part: the base cost of a low-detail image in
/// OpenAI's vision pricing (85 tokens); high-detail images cost more.
pub const TOKENS_PER_IMAGE: usize = 85;

/// Counts tokens for one model: exactly with a BPE table when the model is
/// known to `tiktoken-rs`, otherwise with [`estimate_text_tokens`].
///
/// Cheap to create and copy (the BPE tables are process-wide singletons,
/// loaded on first use). `Send + Sync`.
#[derive(Clone, Copy)]
pub struct TokenCounter {
    encoding: Option<(Tokenizer, &'static CoreBPE)>,
}

impl fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenCounter")
            .field("encoding", &self.encoding_name())
            .finish()
    }
}

impl TokenCounter {
    /// The counter for `model`: its tiktoken encoding when the model name is
    /// known (also for fine-tuned `ft:gpt-4o…` names), the estimate otherwise.
    pub fn for_model(model: &str) -> Self {
        match get_tokenizer(model) {
            Some(tokenizer) => Self::for_tokenizer(tokenizer),
            None => Self::estimate(),
        }
    }

    /// A counter using the `o200k_base` encoding (current OpenAI chat models).
    pub fn o200k_base() -> Self {
        Self::for_tokenizer(Tokenizer::O200kBase)
    }

    /// A counter using the `cl100k_base` encoding (GPT-4, GPT-3.5-turbo).
    pub fn cl100k_base() -> Self {
        Self::for_tokenizer(Tokenizer::Cl100kBase)
    }

    /// A counter that only estimates (see [`estimate_text_tokens`]).
    pub fn estimate() -> Self {
        Self { encoding: None }
    }

    fn for_tokenizer(tokenizer: Tokenizer) -> Self {
        match tiktoken_rs::bpe_for_tokenizer(tokenizer) {
            Ok(bpe) => Self {
                encoding: Some((tokenizer, bpe)),
            },
            Err(_) => Self::estimate(),
        }
    }

    /// Whether counts are exact (a BPE table) rather than estimated.
    pub fn is_exact(&self) -> bool {
        self.encoding.is_some()
    }

    /// The encoding's name (`"o200k_base"`, `"cl100k_base"`, …) or `"estimate"`.
    pub fn encoding_name(&self) -> &'static str {
        match self.encoding.map(|(t, _)| t) {
            Some(Tokenizer::O200kHarmony) => "o200k_harmony",
            Some(Tokenizer::O200kBase) => "o200k_base",
            Some(Tokenizer::Cl100kBase) => "cl100k_base",
            Some(Tokenizer::P50kBase) => "p50k_base",
            Some(Tokenizer::R50kBase) => "r50k_base",
            Some(Tokenizer::P50kEdit) => "p50k_edit",
            Some(Tokenizer::Gpt2) => "gpt2",
            None => "estimate",
        }
    }

    /// Tokens in a plain text (special-token text such as `<|endoftext|>` is
    /// counted as ordinary text).
    pub fn count_text(&self, text: &str) -> usize {
        match self.encoding {
            Some((_, bpe)) => bpe.encode_ordinary(text).len(),
            None => estimate_text_tokens(text),
        }
    }

    /// Tokens one message adds to a prompt: [`TOKENS_PER_MESSAGE`] + role +
    /// content (+ [`TOKENS_PER_IMAGE`] per image part) + name
    /// (+ [`TOKENS_PER_NAME`]) + tool-call id + each tool call's name and
    /// arguments (+ [`TOKENS_PER_TOOL_CALL`] each) + reasoning text.
    pub fn count_message(&self, message: &ChatMessage) -> usize {
        let mut n = TOKENS_PER_MESSAGE + self.count_text(message.role.as_str());
        match &message.content {
            Some(MessageContent::Text(text)) => n += self.count_text(text),
            Some(MessageContent::Parts(parts)) => {
                for part in parts {
                    n += match part {
                        ContentPart::Text { text } => self.count_text(text),
                        ContentPart::ImageUrl { .. } => TOKENS_PER_IMAGE,
                        _ => 0,
                    };
                }
            }
            None => {}
        }
        if let Some(name) = &message.name {
            n += self.count_text(name) + TOKENS_PER_NAME;
        }
        if let Some(id) = &message.tool_call_id {
            n += self.count_text(id);
        }
        if let Some(reasoning) = &message.reasoning_content {
            n += self.count_text(reasoning);
        }
        for call in &message.tool_calls {
            n += TOKENS_PER_TOOL_CALL
                + self.count_text(&call.function.name)
                + self.count_text(&call.function.arguments);
        }
        n
    }

    /// Tokens of a whole prompt: every message plus [`REPLY_PRIMING_TOKENS`].
    pub fn count_messages(&self, messages: &[ChatMessage]) -> usize {
        messages
            .iter()
            .map(|m| self.count_message(m))
            .sum::<usize>()
            + REPLY_PRIMING_TOKENS
    }
}

/// Estimated token count for text of a model without a known tokenizer.
///
/// The rule: each CJK character (Han ideographs, kana, Hangul, CJK punctuation
/// and full-width forms) counts as 1 token; all other characters count as
/// 1/4 token each (OpenAI's rule of thumb of ~4 characters of English text per
/// token), rounded up. For English this is within ~20 % of BPE tokenizers;
/// for Chinese it slightly overestimates modern multilingual vocabularies,
/// which errs on the safe side for context-window checks.
pub fn estimate_text_tokens(text: &str) -> usize {
    let mut cjk = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F // CJK symbols and punctuation
        | 0x3040..=0x30FF // hiragana, katakana
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF00..=0xFFEF // half-width and full-width forms
        | 0x20000..=0x2FA1F // CJK extensions B–F, compatibility supplement
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_latin_and_cjk() {
        assert_eq!(estimate_text_tokens(""), 0);
        assert_eq!(estimate_text_tokens("abcd"), 1);
        assert_eq!(estimate_text_tokens("abcde"), 2);
        assert_eq!(estimate_text_tokens("你好世界"), 4);
        assert_eq!(estimate_text_tokens("你好 abc"), 3);
    }

    #[test]
    fn known_models_are_exact() {
        let c = TokenCounter::for_model("gpt-4o");
        assert!(c.is_exact());
        assert_eq!(c.encoding_name(), "o200k_base");
        assert_eq!(c.count_text("hello world"), 2);
        assert_eq!(
            TokenCounter::for_model("gpt-4").encoding_name(),
            "cl100k_base"
        );
        let unknown = TokenCounter::for_model("smollm2");
        assert!(!unknown.is_exact());
        assert_eq!(unknown.count_text("hello world!"), 3);
    }

    #[test]
    fn message_overhead_follows_cookbook() {
        let c = TokenCounter::for_model("gpt-4o");
        // role "user" = 1 token, "hello world" = 2 tokens, + 3 framing.
        let msg = ChatMessage::user("hello world");
        assert_eq!(c.count_message(&msg), 3 + 1 + 2);
        assert_eq!(c.count_messages(&[msg]), 3 + 1 + 2 + 3);
        let named = ChatMessage::user("hello world").with_name("bob");
        assert_eq!(c.count_message(&named), 3 + 1 + 2 + c.count_text("bob") + 1);
    }
}
