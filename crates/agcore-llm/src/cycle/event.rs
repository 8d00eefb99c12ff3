use agcore_types::{ChatMessage, ChatResponse, ToolCall};

use crate::StreamEvent;

/// An event of [`LlmCycle::submit_stream`](crate::LlmCycle::submit_stream).
///
/// For each model response of the submit the stream yields its
/// [`CycleEvent::Model`] events as they arrive, then one
/// [`CycleEvent::ResponseComplete`] with the folded response; when that
/// response calls tools, one [`CycleEvent::ToolResult`] per call follows (in
/// call order, after all calls of the message finished), then the next model
/// response. The stream ends after the `ResponseComplete` of the response
/// that calls no tools (the final answer), or after one `Err` item.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CycleEvent {
    /// An event of the model's streamed answer.
    Model(StreamEvent),
    /// A model response is complete (folded from its events; hooks ran, usage
    /// recorded, message appended to the conversation).
    ResponseComplete(ChatResponse),
    /// A tool call finished and its result was appended to the conversation.
    ToolResult {
        /// The call.
        call: ToolCall,
        /// The `role = tool` message sent back to the model.
        message: ChatMessage,
        /// Whether the tool failed (recoverably; the message holds the error text).
        is_error: bool,
    },
}

impl CycleEvent {
    /// The text fragment when this is a [`StreamEvent::AssistantTextDelta`].
    pub fn text_delta(&self) -> Option<&str> {
        match self {
            Self::Model(StreamEvent::AssistantTextDelta { text }) => Some(text),
            _ => None,
        }
    }
}
