use agcore_types::{FinishReason, ToolCall, Usage};

/// The identity fields every chunk of one streamed completion repeats.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ResponseMetadata {
    /// Completion id (`chatcmpl-…`).
    pub id: String,
    /// The model that answers.
    pub model: String,
    /// Unix time in seconds.
    pub created: i64,
    /// Backend fingerprint: absent (`None`), `null` (`Some(None)`) or a string, as sent.
    pub system_fingerprint: Option<Option<String>>,
    /// OpenAI's service tier, when reported.
    pub service_tier: Option<String>,
}

impl ResponseMetadata {
    /// Metadata with the three identity fields set and the rest absent.
    pub fn new(id: impl Into<String>, model: impl Into<String>, created: i64) -> Self {
        Self {
            id: id.into(),
            model: model.into(),
            created,
            system_fingerprint: None,
            service_tier: None,
        }
    }
}

/// A semantic event of a streamed chat completion.
///
/// A well-formed stream (as [`crate::decode_sse`] produces it) yields, in order:
/// one [`StreamEvent::Metadata`] (when the server sent chunk metadata), any
/// number of text, reasoning and tool-call events, a [`StreamEvent::ToolCallEnd`]
/// for every started call, at most one [`StreamEvent::Usage`], and exactly one
/// final [`StreamEvent::TurnComplete`]. [`crate::StreamFolder`] turns such a
/// sequence back into a [`agcore_types::ChatResponse`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// Identity of the completion (`id`, `model`, `created`), taken from the
    /// first chunk; comes before every other event.
    Metadata(ResponseMetadata),
    /// Text to append to the assistant message.
    AssistantTextDelta {
        /// The fragment (UTF-8, never split inside a character).
        text: String,
    },
    /// Reasoning text to append (models that stream their reasoning).
    ReasoningDelta {
        /// The fragment.
        text: String,
    },
    /// A tool call begins at position `index` of the assistant message.
    ToolCallStart {
        /// Position of the call in the message.
        index: u32,
        /// The call id.
        id: String,
        /// The function name.
        name: String,
    },
    /// Argument text to append to the call at `index`.
    ToolCallArgumentsDelta {
        /// Position of the call in the message.
        index: u32,
        /// The fragment of JSON text.
        arguments: String,
    },
    /// The call at `index` is complete.
    ToolCallEnd {
        /// Position of the call in the message.
        index: u32,
        /// The assembled call.
        call: ToolCall,
    },
    /// Token usage (usually the last chunk, when `include_usage` is set).
    Usage(Usage),
    /// The completion finished; always the last event of a successful stream.
    TurnComplete {
        /// Why generation stopped.
        reason: FinishReason,
    },
    /// A non-fatal problem reported inside the stream (fatal ones are `Err` items).
    Error {
        /// What happened.
        message: String,
    },
}
