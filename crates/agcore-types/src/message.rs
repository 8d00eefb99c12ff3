use serde::{Deserialize, Serialize};

use crate::{JsonObject, ToolCall};

/// The author of a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions from the application (`"system"`).
    System,
    /// Instructions from the developer (`"developer"`, newer OpenAI models' name for system).
    Developer,
    /// The end user (`"user"`).
    User,
    /// The model (`"assistant"`).
    Assistant,
    /// The result of a tool call (`"tool"`), answering the call named by `tool_call_id`.
    Tool,
}

impl Role {
    /// The wire name: `"system"`, `"developer"`, `"user"`, `"assistant"` or `"tool"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Developer => "developer",
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The content of a message: a plain string or a list of typed parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// `"content": "text"`.
    Text(String),
    /// `"content": [{"type": "text", …}, {"type": "image_url", …}]`.
    Parts(Vec<ContentPart>),
}

impl MessageContent {
    /// The text of the content: the string itself, or the `text` parts joined
    /// with `"\n"` (image and other parts are skipped).
    pub fn text(&self) -> String {
        match self {
            Self::Text(s) => s.clone(),
            Self::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    /// Appends a text part, turning plain text content into parts when needed.
    pub fn push_text(&mut self, text: impl Into<String>) {
        let part = ContentPart::Text { text: text.into() };
        match self {
            Self::Text(s) => {
                let first = ContentPart::Text {
                    text: std::mem::take(s),
                };
                *self = Self::Parts(vec![first, part]);
            }
            Self::Parts(parts) => parts.push(part),
        }
    }
}

impl From<String> for MessageContent {
    fn from(value: String) -> Self {
        Self::Text(value)
    }
}

impl From<&str> for MessageContent {
    fn from(value: &str) -> Self {
        Self::Text(value.to_owned())
    }
}

/// One part of a multi-part message content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentPart {
    /// `{"type": "text", "text": "…"}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"type": "image_url", "image_url": {"url": "…", "detail": "auto"}}`.
    ImageUrl {
        /// The image reference.
        image_url: ImageUrl,
    },
    /// `{"type": "input_audio", "input_audio": {"data": "…", "format": "wav"}}`, kept as JSON.
    InputAudio {
        /// The audio object as sent.
        input_audio: serde_json::Value,
    },
    /// `{"type": "file", "file": {…}}`, kept as JSON.
    File {
        /// The file object as sent.
        file: serde_json::Value,
    },
    /// `{"type": "refusal", "refusal": "…"}` (assistant messages).
    Refusal {
        /// The refusal text.
        refusal: String,
    },
}

/// An image given by URL or `data:` URI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    /// `https://…` or `data:image/png;base64,…`.
    pub url: String,
    /// `"auto"`, `"low"` or `"high"`; omitted when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One message of a conversation, as the chat-completions API sends and receives it.
///
/// Field order matches the API's own (`role`, `content`, `name`, `tool_calls`,
/// `tool_call_id`); fields this type does not name are kept in `extra` (for
/// example `refusal` and `annotations` on OpenAI responses, or
/// provider-specific fields), so a message read from the wire serializes back
/// to the same JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who wrote the message.
    pub role: Role,
    /// The content. `None` is written as `"content": null` (an assistant
    /// message that only calls tools).
    #[serde(default)]
    pub content: Option<MessageContent>,
    /// Optional participant name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Tool calls requested by an assistant message; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `role = tool`: the id of the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Reasoning text returned by reasoning models on some providers
    /// (DeepSeek `reasoning_content`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Fields not named above, in their original order.
    #[serde(flatten)]
    pub extra: crate::JsonObject,
}

impl ChatMessage {
    fn with_role(role: Role, content: Option<MessageContent>) -> Self {
        Self {
            role,
            content,
            name: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning_content: None,
            extra: JsonObject::new(),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<MessageContent>) -> Self {
        Self::with_role(Role::System, Some(content.into()))
    }

    /// A developer message.
    pub fn developer(content: impl Into<MessageContent>) -> Self {
        Self::with_role(Role::Developer, Some(content.into()))
    }

    /// A user message.
    pub fn user(content: impl Into<MessageContent>) -> Self {
        Self::with_role(Role::User, Some(content.into()))
    }

    /// A user message made of parts (text, images).
    pub fn user_parts(parts: Vec<ContentPart>) -> Self {
        Self::with_role(Role::User, Some(MessageContent::Parts(parts)))
    }

    /// An assistant message with text content.
    pub fn assistant(content: impl Into<MessageContent>) -> Self {
        Self::with_role(Role::Assistant, Some(content.into()))
    }

    /// An assistant message that calls tools (`content` is `null`).
    pub fn assistant_tool_calls(tool_calls: Vec<ToolCall>) -> Self {
        let mut msg = Self::with_role(Role::Assistant, None);
        msg.tool_calls = tool_calls;
        msg
    }

    /// A tool-result message answering the call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<MessageContent>) -> Self {
        let mut msg = Self::with_role(Role::Tool, Some(content.into()));
        msg.tool_call_id = Some(tool_call_id.into());
        msg
    }

    /// Sets the participant name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The message text (text parts joined with `"\n"`), or `""` when there is no content.
    pub fn text(&self) -> String {
        self.content
            .as_ref()
            .map(MessageContent::text)
            .unwrap_or_default()
    }

    /// Whether this assistant message asks for tool calls.
    pub fn has_tool_calls(&self) -> bool {
        !self.tool_calls.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_set_roles_and_fields() {
        assert_eq!(ChatMessage::system("s").role, Role::System);
        assert_eq!(ChatMessage::developer("d").role, Role::Developer);
        let tool = ChatMessage::tool("call_1", "42");
        assert_eq!(tool.role, Role::Tool);
        assert_eq!(tool.tool_call_id.as_deref(), Some("call_1"));
        let calls = ChatMessage::assistant_tool_calls(vec![ToolCall::new("c", "f", "{}")]);
        assert!(calls.has_tool_calls());
        assert_eq!(calls.content, None);
    }

    #[test]
    fn assistant_tool_call_message_writes_null_content() {
        let msg = ChatMessage::assistant_tool_calls(vec![ToolCall::new("c", "f", "{}")]);
        let json = serde_json::to_string(&msg).unwrap();
        assert_eq!(
            json,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}"#
        );
    }

    #[test]
    fn push_text_turns_text_into_parts() {
        let mut content = MessageContent::from("你好");
        content.push_text("<system-reminder>x</system-reminder>");
        assert_eq!(content.text(), "你好\n<system-reminder>x</system-reminder>");
        assert!(matches!(content, MessageContent::Parts(ref p) if p.len() == 2));
    }

    #[test]
    fn image_parts_are_skipped_by_text() {
        let msg = ChatMessage::user_parts(vec![
            ContentPart::Text {
                text: "look".into(),
            },
            ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "https://example.com/a.png".into(),
                    detail: Some("low".into()),
                },
            },
        ]);
        assert_eq!(msg.text(), "look");
    }
}
