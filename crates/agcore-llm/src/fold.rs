//! Folding [`StreamEvent`]s back into the [`ChatResponse`] a non-streaming call returns.

use std::collections::{BTreeMap, BTreeSet};

use agcore_types::{
    ChatMessage, ChatResponse, FinishReason, JsonObject, MessageContent, Role, ToolCall, Usage,
};
use futures::StreamExt;

use crate::{ChatStream, LlmError, ResponseMetadata, StreamEvent};

/// Accumulates the events of one streamed completion into a [`ChatResponse`].
///
/// The result equals what the non-streaming call returns for the same content:
/// one choice (index 0) whose message has role `assistant`, the concatenated
/// text as `content` (`null` when the message only calls tools and has no
/// text, as the API does), `reasoning_content` when reasoning was streamed,
/// the tool calls in index order, the finish reason, the usage, and `id`,
/// `model`, `created`, `system_fingerprint`, `service_tier` from
/// [`StreamEvent::Metadata`]. `object` is `"chat.completion"`.
///
/// Tool calls are taken from [`StreamEvent::ToolCallEnd`] (the assembled call);
/// start/argument events are only used to check that every started call ended.
///
/// Push events as they arrive (you can show them and fold them at the same
/// time), then call [`StreamFolder::finish`].
///
/// # Examples
///
/// ```
/// use agcore_llm::{StreamEvent, StreamFolder};
/// use agcore_llm::types::FinishReason;
///
/// let mut folder = StreamFolder::new();
/// folder.push(&StreamEvent::AssistantTextDelta { text: "Hel".into() });
/// folder.push(&StreamEvent::AssistantTextDelta { text: "lo".into() });
/// folder.push(&StreamEvent::TurnComplete { reason: FinishReason::Stop });
/// let response = folder.finish().unwrap();
/// assert_eq!(response.text(), "Hello");
/// assert_eq!(response.finish_reason(), Some(&FinishReason::Stop));
/// ```
#[derive(Debug, Default, Clone)]
pub struct StreamFolder {
    metadata: ResponseMetadata,
    text: String,
    reasoning: String,
    started: BTreeSet<u32>,
    calls: BTreeMap<u32, ToolCall>,
    usage: Option<Usage>,
    finish_reason: Option<FinishReason>,
    errors: Vec<String>,
}

impl StreamFolder {
    /// An empty folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one event. Events after [`StreamEvent::TurnComplete`] are ignored.
    pub fn push(&mut self, event: &StreamEvent) {
        if self.finish_reason.is_some() {
            return;
        }
        match event {
            StreamEvent::Metadata(metadata) => self.metadata = metadata.clone(),
            StreamEvent::AssistantTextDelta { text } => self.text.push_str(text),
            StreamEvent::ReasoningDelta { text } => self.reasoning.push_str(text),
            StreamEvent::ToolCallStart { index, .. } => {
                self.started.insert(*index);
            }
            StreamEvent::ToolCallArgumentsDelta { .. } => {}
            StreamEvent::ToolCallEnd { index, call } => {
                self.calls.insert(*index, call.clone());
            }
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::TurnComplete { reason } => self.finish_reason = Some(reason.clone()),
            StreamEvent::Error { message } => self.errors.push(message.clone()),
        }
    }

    /// Non-fatal error messages seen in the stream ([`StreamEvent::Error`]).
    pub fn warnings(&self) -> &[String] {
        &self.errors
    }

    /// The text received so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Builds the response.
    ///
    /// # Errors
    /// [`LlmError::Stream`] when no [`StreamEvent::TurnComplete`] was pushed
    /// (a truncated stream), or when a started tool call never ended.
    pub fn finish(self) -> Result<ChatResponse, LlmError> {
        let finish_reason = self.finish_reason.ok_or_else(|| {
            LlmError::Stream("stream ended without a finish reason (truncated answer)".to_owned())
        })?;
        if let Some(index) = self.started.iter().find(|i| !self.calls.contains_key(i)) {
            return Err(LlmError::Stream(format!(
                "tool call {index} started but never ended"
            )));
        }
        let tool_calls: Vec<ToolCall> = self.calls.into_values().collect();
        let content = if self.text.is_empty() && !tool_calls.is_empty() {
            None
        } else {
            Some(MessageContent::Text(self.text))
        };
        let message = ChatMessage {
            role: Role::Assistant,
            content,
            name: None,
            tool_calls,
            tool_call_id: None,
            reasoning_content: (!self.reasoning.is_empty()).then_some(self.reasoning),
            extra: JsonObject::new(),
        };
        let mut response = ChatResponse::from_message(self.metadata.model, message, finish_reason);
        response.id = self.metadata.id;
        response.created = self.metadata.created;
        response.system_fingerprint = self.metadata.system_fingerprint;
        response.service_tier = self.metadata.service_tier;
        response.usage = self.usage;
        Ok(response)
    }
}

/// The events a stream carrying exactly `response` yields (the inverse of
/// [`StreamFolder`] for the first choice): metadata, reasoning, text, each tool
/// call as start / arguments / end, usage, and the turn end. A response without
/// a finish reason ends with `tool_calls` when it calls tools, else `stop`.
///
/// Folding these events gives back `response`'s `id`, `model`, `created`,
/// message role, content, reasoning and tool calls, finish reason and usage.
pub fn events_from_response(response: &ChatResponse) -> Vec<StreamEvent> {
    let mut events = vec![StreamEvent::Metadata(ResponseMetadata {
        id: response.id.clone(),
        model: response.model.clone(),
        created: response.created,
        system_fingerprint: response.system_fingerprint.clone(),
        service_tier: response.service_tier.clone(),
    })];
    let choice = response.choices.first();
    let message = choice.map(|c| &c.message);
    if let Some(reasoning) = message.and_then(|m| m.reasoning_content.as_ref()) {
        events.push(StreamEvent::ReasoningDelta {
            text: reasoning.clone(),
        });
    }
    let text = message.map(ChatMessage::text).unwrap_or_default();
    if !text.is_empty() {
        events.push(StreamEvent::AssistantTextDelta { text });
    }
    let calls = message.map(|m| m.tool_calls.as_slice()).unwrap_or_default();
    for (index, call) in (0u32..).zip(calls) {
        events.push(StreamEvent::ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.function.name.clone(),
        });
        if !call.function.arguments.is_empty() {
            events.push(StreamEvent::ToolCallArgumentsDelta {
                index,
                arguments: call.function.arguments.clone(),
            });
        }
        events.push(StreamEvent::ToolCallEnd {
            index,
            call: call.clone(),
        });
    }
    if let Some(usage) = &response.usage {
        events.push(StreamEvent::Usage(usage.clone()));
    }
    let reason = choice
        .and_then(|c| c.finish_reason.clone())
        .unwrap_or(if calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        });
    events.push(StreamEvent::TurnComplete { reason });
    events
}

/// Reads a whole [`ChatStream`] and folds it with [`StreamFolder`].
///
/// # Errors
/// The first `Err` the stream yields, or the errors of [`StreamFolder::finish`].
pub async fn fold_stream(mut stream: ChatStream) -> Result<ChatResponse, LlmError> {
    let mut folder = StreamFolder::new();
    while let Some(event) = stream.next().await {
        folder.push(&event?);
    }
    folder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_only_message_has_null_content() {
        let mut folder = StreamFolder::new();
        let call = ToolCall::new("c1", "f", "{}");
        folder.push(&StreamEvent::ToolCallStart {
            index: 0,
            id: "c1".into(),
            name: "f".into(),
        });
        folder.push(&StreamEvent::ToolCallEnd {
            index: 0,
            call: call.clone(),
        });
        folder.push(&StreamEvent::TurnComplete {
            reason: FinishReason::ToolCalls,
        });
        let response = folder.finish().unwrap();
        let message = response.message().unwrap();
        assert_eq!(message.content, None);
        assert_eq!(message.tool_calls, vec![call]);
    }

    #[test]
    fn unfinished_streams_and_unended_calls_are_errors() {
        let mut folder = StreamFolder::new();
        folder.push(&StreamEvent::AssistantTextDelta {
            text: "partial".into(),
        });
        assert!(matches!(folder.finish(), Err(LlmError::Stream(_))));

        let mut folder = StreamFolder::new();
        folder.push(&StreamEvent::ToolCallStart {
            index: 3,
            id: "c".into(),
            name: "f".into(),
        });
        folder.push(&StreamEvent::TurnComplete {
            reason: FinishReason::ToolCalls,
        });
        let err = folder.finish().unwrap_err();
        assert!(err.to_string().contains("tool call 3"));
    }

    #[test]
    fn events_after_turn_complete_are_ignored() {
        let mut folder = StreamFolder::new();
        folder.push(&StreamEvent::AssistantTextDelta { text: "a".into() });
        folder.push(&StreamEvent::TurnComplete {
            reason: FinishReason::Stop,
        });
        folder.push(&StreamEvent::AssistantTextDelta { text: "b".into() });
        assert_eq!(folder.finish().unwrap().text(), "a");
    }
}
