//! The body of a chat request and the events of its SSE answer.

use axum::response::sse::Event;
use serde::{Deserialize, Serialize};

/// Body of `POST /v1/chat` and `POST /v1/scopes/{agent}/{user}/chat`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    /// The user's message (not empty).
    pub message: String,
    /// The conversation to continue: the `session` of an earlier `done`
    /// event (absent: a new conversation). At most 128 ASCII letters,
    /// digits, `-`, `_` or `.`.
    #[serde(default)]
    pub session: Option<String>,
}

/// One event of a streamed chat turn. In order: one [`ChatEvent::MemoryContext`],
/// any number of [`ChatEvent::Delta`], then [`ChatEvent::Done`] or
/// [`ChatEvent::Error`]. Serialized (and sent as SSE data) as its fields
/// only, e.g. `{"text":"Hel"}`; the SSE event name is [`ChatEvent::event_name`].
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ChatEvent {
    /// The `<memory-context>` block the turn put in the system prompt, tags
    /// included (`""` when memory is off or nothing was recalled), and the
    /// ids of the long-term memories it holds.
    MemoryContext {
        /// The block as the model sees it (memory text quoted as data).
        text: String,
        /// Ids of the prefetched memories, best match first.
        memory_ids: Vec<i64>,
    },
    /// A piece of the reply, as the model writes it.
    Delta {
        /// The text to append.
        text: String,
    },
    /// The turn finished and is part of the conversation.
    Done {
        /// The whole reply.
        reply: String,
        /// The conversation's id: send it as `session` to continue.
        session: String,
        /// Tokens used by the turn's last model request, when the endpoint
        /// reports them: OpenAI's usage object (`prompt_tokens`,
        /// `completion_tokens`, `total_tokens`, …).
        usage: Option<serde_json::Value>,
    },
    /// The turn failed; the conversation is as before it.
    Error {
        /// One sentence saying what failed (never a key or memory text).
        error: String,
    },
}

impl ChatEvent {
    /// The SSE event name: `memory_context`, `delta`, `done` or `error`.
    pub fn event_name(&self) -> &'static str {
        match self {
            Self::MemoryContext { .. } => "memory_context",
            Self::Delta { .. } => "delta",
            Self::Done { .. } => "done",
            Self::Error { .. } => "error",
        }
    }

    /// The SSE event: named by [`ChatEvent::event_name`], its data the
    /// variant's fields as one line of JSON.
    pub fn to_sse(&self) -> Event {
        let data = serde_json::to_string(self)
            .unwrap_or_else(|_| r#"{"error":"the event could not be encoded"}"#.to_owned());
        Event::default().event(self.event_name()).data(data)
    }
}

impl From<ChatEvent> for Event {
    fn from(event: ChatEvent) -> Self {
        event.to_sse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_as_their_fields() {
        let event = ChatEvent::Delta { text: "Hi".into() };
        assert_eq!(event.event_name(), "delta");
        assert_eq!(serde_json::to_string(&event).unwrap(), r#"{"text":"Hi"}"#);
        let done = ChatEvent::Done {
            reply: "Hi".into(),
            session: "s1".into(),
            usage: None,
        };
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            serde_json::json!({"reply": "Hi", "session": "s1", "usage": null})
        );
        let context = ChatEvent::MemoryContext {
            text: String::new(),
            memory_ids: vec![3],
        };
        assert_eq!(context.event_name(), "memory_context");
        assert_eq!(
            serde_json::to_string(&context).unwrap(),
            r#"{"text":"","memory_ids":[3]}"#
        );
    }

    #[test]
    fn requests_refuse_unknown_fields() {
        let ok: ChatRequest = serde_json::from_str(r#"{"message": "hi"}"#).unwrap();
        assert_eq!(ok.session, None);
        assert!(serde_json::from_str::<ChatRequest>(r#"{"message": "hi", "agent": "x"}"#).is_err());
    }
}
