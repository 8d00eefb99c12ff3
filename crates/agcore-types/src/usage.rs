use serde::{Deserialize, Serialize};

use crate::JsonObject;

/// Token usage of one request, in tokens.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt (input), including cached ones.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens in the completion (output), including reasoning tokens.
    #[serde(default)]
    pub completion_tokens: u64,
    /// `prompt_tokens + completion_tokens`.
    #[serde(default)]
    pub total_tokens: u64,
    /// Breakdown of the prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    /// Breakdown of the completion tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens_details: Option<CompletionTokensDetails>,
    /// Fields not named above (e.g. DeepSeek's `prompt_cache_hit_tokens`).
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `prompt_tokens_details`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PromptTokensDetails {
    /// Prompt tokens served from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// Audio input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_tokens: Option<u64>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `completion_tokens_details`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CompletionTokensDetails {
    /// Tokens spent on hidden reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Audio output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_tokens: Option<u64>,
    /// Predicted-output tokens that appeared in the completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_prediction_tokens: Option<u64>,
    /// Predicted-output tokens that did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected_prediction_tokens: Option<u64>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Usage {
    /// A usage record with the three totals set.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Self {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
            ..Self::default()
        }
    }

    /// Prompt tokens served from cache (0 when not reported).
    pub fn cached_tokens(&self) -> u64 {
        self.prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
            .unwrap_or(0)
    }

    /// Reasoning tokens (0 when not reported).
    pub fn reasoning_tokens(&self) -> u64 {
        self.completion_tokens_details
            .as_ref()
            .and_then(|d| d.reasoning_tokens)
            .unwrap_or(0)
    }

    /// Adds another record's counts to this one (details summed field by field).
    pub fn accumulate(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
        let cached = self.cached_tokens() + other.cached_tokens();
        if cached > 0 {
            self.prompt_tokens_details
                .get_or_insert_with(PromptTokensDetails::default)
                .cached_tokens = Some(cached);
        }
        let reasoning = self.reasoning_tokens() + other.reasoning_tokens();
        if reasoning > 0 {
            self.completion_tokens_details
                .get_or_insert_with(CompletionTokensDetails::default)
                .reasoning_tokens = Some(reasoning);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulate_sums_totals_and_details() {
        let mut total = Usage::new(10, 5);
        let mut other = Usage::new(100, 20);
        other.prompt_tokens_details = Some(PromptTokensDetails {
            cached_tokens: Some(64),
            ..PromptTokensDetails::default()
        });
        other.completion_tokens_details = Some(CompletionTokensDetails {
            reasoning_tokens: Some(7),
            ..CompletionTokensDetails::default()
        });
        total.accumulate(&other);
        total.accumulate(&other);
        assert_eq!(total.prompt_tokens, 210);
        assert_eq!(total.completion_tokens, 45);
        assert_eq!(total.total_tokens, 255);
        assert_eq!(total.cached_tokens(), 128);
        assert_eq!(total.reasoning_tokens(), 14);
    }
}
