//! A wiremock OpenAI-compatible endpoint for `agcore chat` tests: streamed
//! replies chosen by what the request body holds.
#![allow(dead_code)]

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

/// Matches requests whose body contains (`true`) or lacks (`false`) the text.
pub struct BodyHas(pub String, pub bool);

impl Match for BodyHas {
    fn matches(&self, request: &Request) -> bool {
        String::from_utf8_lossy(&request.body).contains(self.0.as_str()) == self.1
    }
}

/// A server-sent event stream of `chunks`, ended by `[DONE]`.
pub fn sse(chunks: &[Value]) -> String {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body
}

/// One streamed chat-completion chunk.
pub fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "mock",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    })
}

/// A streamed text reply.
pub fn text_reply(text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(
        sse(&[
            chunk(json!({"role": "assistant", "content": text}), None),
            chunk(json!({}), Some("stop")),
        ]),
        "text/event-stream",
    )
}

/// A streamed call of tool `name` with `arguments` (a JSON object).
pub fn tool_call_reply(name: &str, arguments: &Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(
        sse(&[
            chunk(json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": ""}}]}), None),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments.to_string()}}]}), None),
            chunk(json!({}), Some("tool_calls")),
        ]),
        "text/event-stream",
    )
}

/// Mounts `reply` for streamed chat requests whose body holds every text
/// of `has` and none of `lacks`.
pub async fn when(server: &MockServer, has: &[&str], lacks: &[&str], reply: ResponseTemplate) {
    let mut mock = Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(BodyHas("\"stream\":true".to_owned(), true));
    for text in has {
        mock = mock.and(BodyHas((*text).to_owned(), true));
    }
    for text in lacks {
        mock = mock.and(BodyHas((*text).to_owned(), false));
    }
    mock.respond_with(reply).mount(server).await;
}
