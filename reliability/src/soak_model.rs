//! [`SoakModel`]: a scripted chat model that never runs out and keeps no
//! log, for long runs: it answers fact-extraction requests with one fact,
//! follows a tool result with a short answer, and otherwise cycles through
//! calling `memory_save`, calling `memory_recall` and answering in text.

use std::sync::atomic::{AtomicU64, Ordering};

use agcore::llm::{ChatStream, LlmError, LlmProvider, events_from_response};
use agcore::types::{ChatMessage, ChatRequest, ChatResponse, FinishReason, Role, ToolCall};
use async_trait::async_trait;
use serde_json::json;

/// See the module docs. `Send + Sync`.
#[derive(Debug, Default)]
pub struct SoakModel {
    calls: AtomicU64,
    extractions: AtomicU64,
    tool_calls: AtomicU64,
}

impl SoakModel {
    /// Requests answered: (all, fact extractions, tool calls asked for).
    pub fn counts(&self) -> (u64, u64, u64) {
        (
            self.calls.load(Ordering::Relaxed),
            self.extractions.load(Ordering::Relaxed),
            self.tool_calls.load(Ordering::Relaxed),
        )
    }

    fn answer(&self, request: &ChatRequest) -> ChatResponse {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let message = if request.response_format.is_some() {
            self.extractions.fetch_add(1, Ordering::Relaxed);
            let fact = json!({"facts": [{
                "content": format!("The user mentioned topic {} during the soak", n % 500),
                "type": "user",
                "tags": ["soak"],
                "confidence": 0.9,
                "replace": null,
            }]});
            ChatMessage::assistant(fact.to_string())
        } else if request
            .messages
            .last()
            .is_some_and(|m| m.role == Role::Tool)
        {
            ChatMessage::assistant(format!("Done ({n})."))
        } else {
            if n % 3 < 2 {
                self.tool_calls.fetch_add(1, Ordering::Relaxed);
            }
            match n % 3 {
                0 => ChatMessage::assistant_tool_calls(vec![ToolCall::new(
                    format!("call_{n}"),
                    "memory_save",
                    json!({
                        "action": "create",
                        "type": "project",
                        "name": format!("soak note {}", n % 2_000),
                        "content": format!("Soak note {}: the build on runner {} passed", n % 2_000, n % 7),
                    })
                    .to_string(),
                )]),
                1 => ChatMessage::assistant_tool_calls(vec![ToolCall::new(
                    format!("call_{n}"),
                    "memory_recall",
                    json!({"query": format!("runner {} build", n % 7)}).to_string(),
                )]),
                _ => ChatMessage::assistant(format!("Here is answer {n}.")),
            }
        };
        let reason = if message.tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        ChatResponse::from_message("soak", message, reason)
    }
}

#[async_trait]
impl LlmProvider for SoakModel {
    fn name(&self) -> &str {
        "soak"
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(self.answer(&request))
    }

    async fn chat_stream(&self, request: ChatRequest) -> Result<ChatStream, LlmError> {
        let events = events_from_response(&self.answer(&request));
        Ok(Box::pin(futures::stream::iter(events.into_iter().map(Ok))))
    }
}
