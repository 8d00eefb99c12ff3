//! `[memory_agent]`: the fact-extraction model's settings.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::MemoryError;

/// `[memory_agent]`: the LLM that extracts facts from buffered dialogue.
/// `Debug` shows whether an `api_key` is set, never the key.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct MemoryAgentConfig {
    /// Fact extraction on (default `false`).
    pub enabled: bool,
    /// Provider name as registered with the LLM layer (default `openai`).
    pub provider: String,
    /// Model id (default empty: the provider's default).
    pub model: String,
    /// API key (default empty). Prefer `api_key_env` over a key in a file.
    pub api_key: String,
    /// Environment variable holding the API key (default `OPENAI_API_KEY`).
    pub api_key_env: String,
    /// Base URL (default empty: the provider's).
    pub base_url: String,
    /// Request timeout: a number with unit `ms`, `s`, `m` or `h` (default `30s`).
    pub timeout: String,
    /// `[memory_agent.extract]`.
    pub extract: ExtractConfig,
    /// `[memory_agent.summarize]`.
    pub summarize: SummarizeConfig,
}

impl std::fmt::Debug for MemoryAgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryAgentConfig")
            .field("enabled", &self.enabled)
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("has_api_key", &!self.api_key.is_empty())
            .field("api_key_env", &self.api_key_env)
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("extract", &self.extract)
            .field("summarize", &self.summarize)
            .finish()
    }
}

impl Default for MemoryAgentConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            provider: "openai".into(),
            model: String::new(),
            api_key: String::new(),
            api_key_env: "OPENAI_API_KEY".into(),
            base_url: String::new(),
            timeout: "30s".into(),
            extract: ExtractConfig::default(),
            summarize: SummarizeConfig::default(),
        }
    }
}

impl MemoryAgentConfig {
    /// `timeout` as a duration.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for text that is not `<number><ms|s|m|h>`.
    pub fn timeout(&self) -> Result<Duration, MemoryError> {
        parse_duration(&self.timeout)
    }
}

/// Parses `<number><unit>` with unit `ms`, `s`, `m` or `h` (`"30s"`, `"1.5m"`).
///
/// # Errors
/// [`MemoryError::InvalidInput`].
pub fn parse_duration(text: &str) -> Result<Duration, MemoryError> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => 0.0,
    };
    match number.trim().parse::<f64>() {
        Ok(n) if scale > 0.0 && n.is_finite() && n >= 0.0 => Duration::try_from_secs_f64(n * scale)
            .map_err(|e| MemoryError::InvalidInput(format!("duration `{text}`: {e}"))),
        _ => Err(MemoryError::InvalidInput(format!(
            "duration `{text}`: expected a number with unit ms, s, m or h (e.g. `30s`)"
        ))),
    }
}

/// `[memory_agent.extract]`: fact extraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ExtractConfig {
    /// Extract after this many buffered turns (default 5).
    pub batch_size: usize,
    /// Most facts taken from one extraction (default 10).
    pub max_facts: usize,
    /// Facts below this confidence are dropped (default 0.7).
    pub min_confidence: f64,
    /// Tag entries (default `true`): extracted facts keep the tags the
    /// model gave and get rule-based ones
    /// ([`rule_tags`](crate::long_term::rule_tags)) when it gave none, as do
    /// `memory_save` entries; `false`: no tags are added (the model's are
    /// dropped).
    pub auto_tag: bool,
    /// How the reply is constrained to the fact JSON (default
    /// [`StructuredOutput::JsonSchema`], falling back by itself when the
    /// server refuses it).
    pub structured_output: StructuredOutput,
}

/// `[memory_agent.extract] structured_output`: how the extraction request
/// asks for JSON that follows the fact schema
/// (`facts_json_schema` of `agcore_agent::turn_memory`). A server
/// that constrains decoding (OpenAI structured outputs, llama.cpp and
/// llama-cpp-python grammars, vLLM guided decoding) then cannot return
/// malformed JSON, which matters for small local models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StructuredOutput {
    /// `response_format: {"type": "json_schema", …}` (OpenAI, llama.cpp's
    /// `llama-server`, vLLM); when the server rejects it, `json_object`
    /// with the schema, then no constraint.
    #[default]
    JsonSchema,
    /// `response_format: {"type": "json_object", "schema": …}`
    /// (llama-cpp-python's server; JSON mode elsewhere); when rejected, no
    /// constraint.
    JsonObject,
    /// No `response_format`: the prompt alone asks for JSON.
    Off,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        Self {
            batch_size: 5,
            max_facts: 10,
            min_confidence: 0.7,
            auto_tag: true,
            structured_output: StructuredOutput::JsonSchema,
        }
    }
}

/// `[memory_agent.summarize]`: summary compaction of the message history by
/// the `[memory_agent]` model (applied by `AgentConfig::with_memory_settings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct SummarizeConfig {
    /// Summarisation on (default `false`).
    pub enabled: bool,
    /// Summarise the older messages into one once the history exceeds this
    /// many tokens (default 6000).
    pub trigger_tokens: usize,
}

impl Default for SummarizeConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            trigger_tokens: 6000,
        }
    }
}
