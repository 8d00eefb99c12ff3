use serde::{Deserialize, Serialize};

use crate::{ChatMessage, JsonObject, Usage};

/// Why the model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end or a stop sequence.
    Stop,
    /// The token limit was reached.
    Length,
    /// The model called one or more tools.
    ToolCalls,
    /// Output was withheld by a content filter.
    ContentFilter,
    /// Deprecated single function call.
    FunctionCall,
    /// Any other value a compatible server sends (kept verbatim).
    #[serde(untagged)]
    Other(String),
}

/// One choice of a chat completion.
#[serde_with::serde_as]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Index of this choice (0 unless `n > 1`).
    #[serde(default)]
    pub index: u32,
    /// The generated message.
    pub message: ChatMessage,
    /// Log-probability information: absent, `null`, or an object, kept as sent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub logprobs: Option<Option<serde_json::Value>>,
    /// Why generation stopped.
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A chat-completions response (`"object": "chat.completion"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// Response id (`chatcmpl-…`).
    #[serde(default)]
    pub id: String,
    /// `"chat.completion"`.
    #[serde(default = "completion_object")]
    pub object: String,
    /// Unix time in seconds.
    #[serde(default)]
    pub created: i64,
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// The generated choices (one unless `n > 1`).
    pub choices: Vec<Choice>,
    /// Token usage, when the server reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// OpenAI's service tier, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Backend configuration fingerprint: absent, `null` or a string, kept as sent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub system_fingerprint: Option<Option<String>>,
    /// Fields not named above.
    #[serde(flatten)]
    pub extra: JsonObject,
}

fn completion_object() -> String {
    "chat.completion".to_owned()
}

impl ChatResponse {
    /// A response with one choice holding `message`.
    pub fn from_message(
        model: impl Into<String>,
        message: ChatMessage,
        finish_reason: FinishReason,
    ) -> Self {
        Self {
            id: String::new(),
            object: completion_object(),
            created: 0,
            model: model.into(),
            choices: vec![Choice {
                index: 0,
                message,
                logprobs: None,
                finish_reason: Some(finish_reason),
                extra: JsonObject::new(),
            }],
            usage: None,
            service_tier: None,
            system_fingerprint: None,
            extra: JsonObject::new(),
        }
    }

    /// The first choice's message, if any.
    pub fn message(&self) -> Option<&ChatMessage> {
        self.choices.first().map(|c| &c.message)
    }

    /// The first choice's text, or `""`.
    pub fn text(&self) -> String {
        self.message().map(ChatMessage::text).unwrap_or_default()
    }

    /// The first choice's finish reason.
    pub fn finish_reason(&self) -> Option<&FinishReason> {
        self.choices.first().and_then(|c| c.finish_reason.as_ref())
    }

    /// Usage, or zeros when the server did not report it.
    pub fn usage_or_default(&self) -> Usage {
        self.usage.clone().unwrap_or_default()
    }
}
