use serde::{Deserialize, Serialize};

use crate::{ChatMessage, JsonObject, ToolDefinition};

/// How the model may use tools: `"none"`, `"auto"`, `"required"` or one named function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolChoice {
    /// `"none"`, `"auto"` or `"required"`.
    Mode(String),
    /// `{"type": "function", "function": {"name": "…"}}`.
    Named(serde_json::Value),
}

impl ToolChoice {
    /// `"auto"`: the model decides.
    pub fn auto() -> Self {
        Self::Mode("auto".into())
    }
    /// `"none"`: no tool calls.
    pub fn none() -> Self {
        Self::Mode("none".into())
    }
    /// `"required"`: at least one tool call.
    pub fn required() -> Self {
        Self::Mode("required".into())
    }
    /// Forces a call to the function `name`.
    pub fn function(name: &str) -> Self {
        Self::Named(serde_json::json!({"type": "function", "function": {"name": name}}))
    }
}

/// `stop`: one string or up to four strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StopSequences {
    /// A single stop string.
    One(String),
    /// Several stop strings.
    Many(Vec<String>),
}

/// `stream_options`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StreamOptions {
    /// Ask for a final chunk carrying [`crate::Usage`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_usage: Option<bool>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `response_format`: `{"type": "text"}`, `{"type": "json_object"}` (with an
/// optional `"schema"`, which llama-cpp-python's server turns into a grammar)
/// or `{"type": "json_schema", "json_schema": {…}}` (OpenAI's structured
/// outputs; also llama.cpp's `llama-server` and vLLM).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Free text.
    Text,
    /// Any valid JSON object (JSON mode).
    JsonObject {
        /// A JSON Schema the object must follow, for servers that read it
        /// here (llama-cpp-python); omitted when `None`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        schema: Option<serde_json::Value>,
    },
    /// JSON matching a schema (`{"name", "schema", "strict"}`).
    JsonSchema {
        /// The `json_schema` object as sent.
        json_schema: serde_json::Value,
    },
}

/// A chat-completions request body (`POST /v1/chat/completions`).
///
/// Optional fields are omitted when `None`; provider-specific fields go in
/// `extra` and are written after the named ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Model id, e.g. `"gpt-4o-mini"`.
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    /// How the model may use `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Whether several tool calls may come in one assistant message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Sampling temperature, 0–2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Nucleus sampling mass, 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Legacy completion-token limit (still the one most compatible servers read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Completion-token limit including reasoning tokens (newer OpenAI models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopSequences>,
    /// Seed for best-effort deterministic sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Output format constraint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// Stream the answer as server-sent events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Streaming options (usage chunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// End-user id for abuse monitoring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Provider-specific fields (e.g. `{"enable_thinking": false}`), written last.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ChatRequest {
    /// A request with only `model` and `messages` set.
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        Self {
            model: model.into(),
            messages,
            tools: Vec::new(),
            tool_choice: None,
            parallel_tool_calls: None,
            temperature: None,
            top_p: None,
            max_tokens: None,
            max_completion_tokens: None,
            stop: None,
            seed: None,
            response_format: None,
            stream: None,
            stream_options: None,
            user: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the tools.
    pub fn with_tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }

    /// Sets `tool_choice`.
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets `max_tokens`.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Adds a provider-specific field.
    pub fn with_extra(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }
}
