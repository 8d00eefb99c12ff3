use serde::{Deserialize, Serialize};

use crate::{FinishReason, JsonObject, Role, Usage};

/// One server-sent event of a streamed chat completion
/// (`"object": "chat.completion.chunk"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionChunk {
    /// Completion id, the same on every chunk.
    #[serde(default)]
    pub id: String,
    /// `"chat.completion.chunk"`.
    #[serde(default)]
    pub object: String,
    /// Unix time in seconds.
    #[serde(default)]
    pub created: i64,
    /// The model that answers.
    #[serde(default)]
    pub model: String,
    /// OpenAI's service tier, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Backend fingerprint: absent, `null` or a string, kept as sent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub system_fingerprint: Option<Option<String>>,
    /// Deltas; empty on the final usage-only chunk.
    #[serde(default)]
    pub choices: Vec<ChunkChoice>,
    /// Usage: absent, `null` on ordinary chunks when `include_usage` is set,
    /// or the totals on the last chunk.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub usage: Option<Option<Usage>>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One choice's delta inside a chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Choice index.
    #[serde(default)]
    pub index: u32,
    /// What this chunk adds.
    #[serde(default)]
    pub delta: ChunkDelta,
    /// Log-probabilities: absent, `null` or an object.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub logprobs: Option<Option<serde_json::Value>>,
    /// Set on the choice's last chunk; `null` before.
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The incremental part of a message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChunkDelta {
    /// Role: absent, `null` (llama.cpp sends it on every chunk) or set,
    /// usually only on the first chunk.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub role: Option<Option<Role>>,
    /// Text to append: absent, `null` or a string.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub content: Option<Option<String>>,
    /// Reasoning text to append (DeepSeek `reasoning_content`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub reasoning_content: Option<Option<String>>,
    /// Tool-call fragments, assembled by `index`: absent, `null` (llama.cpp)
    /// or a list.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub tool_calls: Option<Option<Vec<ToolCallDelta>>>,
    /// Fields not named above (e.g. `refusal`, legacy `function_call`).
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ChunkDelta {
    /// The text fragment, if any.
    pub fn text(&self) -> Option<&str> {
        self.content.as_ref().and_then(|c| c.as_deref())
    }

    /// The reasoning fragment, if any.
    pub fn reasoning(&self) -> Option<&str> {
        self.reasoning_content.as_ref().and_then(|c| c.as_deref())
    }

    /// The role, if set.
    pub fn role(&self) -> Option<Role> {
        self.role.flatten()
    }

    /// The tool-call fragments (empty when absent or `null`).
    pub fn tool_calls(&self) -> &[ToolCallDelta] {
        self.tool_calls
            .as_ref()
            .and_then(|c| c.as_deref())
            .unwrap_or_default()
    }
}

/// A fragment of one tool call; fragments with the same `index` form one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallDelta {
    /// Position of the call in the assistant message.
    #[serde(default)]
    pub index: u32,
    /// Call id (first fragment; some servers repeat it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `"function"` (first fragment; some servers repeat it).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name and argument text fragments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionCallDelta>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The function part of a tool-call fragment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FunctionCallDelta {
    /// Function name (first fragment; some servers repeat it or send `null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Argument text to append.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}
