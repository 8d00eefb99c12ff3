use agcore_types::{FinishReason, ToolCall, Usage};

/// A semantic event of a streamed chat completion.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
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
