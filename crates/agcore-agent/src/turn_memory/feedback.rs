//! Recall feedback: the entries a turn's `memory_recall` calls returned, so
//! that the turn's end records them as shown (and as used when the reply
//! refers to them), like the entries prefetch injected.

use agcore_types::{ChatMessage, Role};
use serde_json::Value;

use agcore_memory::long_term::{MemoryEntry, ScopedMemory, detect_references};

/// The name the `memory_recall` tool is registered under.
pub const RECALL_TOOL: &str = "memory_recall";

/// The instruction-like lines (normalized; see
/// [`instruction_like`](crate::turn_memory::instruction_like)) of the tool
/// results of the turn that starts after the last user message of
/// `history`.
pub(crate) fn turn_tool_lines(history: &[ChatMessage]) -> Vec<String> {
    let start = history
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |i| i + 1);
    history
        .get(start..)
        .unwrap_or_default()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .flat_map(|m| {
            let text = m.text();
            match serde_json::from_str::<Value>(&text) {
                // A JSON result: the lines of its strings.
                Ok(value) => {
                    let mut strings = Vec::new();
                    string_leaves(&value, &mut strings);
                    strings
                        .iter()
                        .flat_map(|s| crate::turn_memory::facts::instruction_lines(s))
                        .collect()
                }
                Err(_) => crate::turn_memory::facts::instruction_lines(&text),
            }
        })
        .collect()
}

fn string_leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| string_leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_leaves(v, out)),
        _ => {}
    }
}

/// Ids of the memories returned by the `memory_recall` calls of the turn
/// that starts after the last user message of `history`, in order, without
/// repeats. Results that are not the tool's JSON (an error message) give no ids.
pub fn recalled_ids(history: &[ChatMessage]) -> Vec<i64> {
    let start = history
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |i| i + 1);
    let turn = history.get(start..).unwrap_or_default();
    let calls: Vec<&str> = turn
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .filter(|c| c.function.name == RECALL_TOOL)
        .map(|c| c.id.as_str())
        .collect();
    let mut ids = Vec::new();
    for message in turn.iter().filter(|m| m.role == Role::Tool) {
        let Some(call) = message.tool_call_id.as_deref() else {
            continue;
        };
        if !calls.contains(&call) {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(&message.text()) else {
            continue;
        };
        let found = value
            .get("memories")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("id").and_then(Value::as_i64));
        for id in found {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// One turn's usage feedback, written off the turn's path.
pub(super) struct Feedback {
    pub(super) scoped: ScopedMemory,
    pub(super) session_id: String,
    pub(super) query: String,
    pub(super) reply: String,
    pub(super) min_overlap: f64,
}

impl Feedback {
    /// Records `injected` and the entries of `recalled` ids (read here) as
    /// used when the reply refers to them, shown otherwise.
    pub(super) async fn record(self, mut shown: Vec<MemoryEntry>, recalled: Vec<i64>) {
        for id in recalled {
            if shown.iter().any(|e| e.id == id) {
                continue;
            }
            match self.scoped.get(id).await {
                Ok(Some(entry)) => shown.push(entry),
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "long-term memory: reading a recalled entry failed");
                }
            }
        }
        if shown.is_empty() {
            return;
        }
        let referenced = detect_references(&self.reply, &shown, self.min_overlap);
        let unreferenced: Vec<i64> = shown
            .iter()
            .map(|e| e.id)
            .filter(|id| !referenced.contains(id))
            .collect();
        for (ids, used) in [(referenced, true), (unreferenced, false)] {
            if ids.is_empty() {
                continue;
            }
            if let Err(err) = self
                .scoped
                .record_use(&self.session_id, &self.query, &ids, used)
                .await
            {
                tracing::warn!(error = %err, "long-term memory: recording use failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use agcore_types::ToolCall;

    use super::*;

    fn result(call: &str, text: &str) -> ChatMessage {
        ChatMessage::tool(call, text)
    }

    #[test]
    fn only_this_turns_recall_results_count() {
        let history = vec![
            ChatMessage::user("earlier"),
            ChatMessage::assistant_tool_calls(vec![ToolCall::new("old", RECALL_TOOL, "{}")]),
            result("old", r#"{"memories":[{"id":99}]}"#),
            ChatMessage::user("what do I drink?"),
            ChatMessage::assistant_tool_calls(vec![
                ToolCall::new("a", RECALL_TOOL, "{}"),
                ToolCall::new("b", "other_tool", "{}"),
                ToolCall::new("c", RECALL_TOOL, "{}"),
            ]),
            result("a", r#"{"memories":[{"id":3},{"id":5}]}"#),
            result("b", r#"{"memories":[{"id":7}]}"#),
            result("c", "Error: tool `memory_recall` failed"),
            ChatMessage::assistant("Green tea."),
        ];
        assert_eq!(recalled_ids(&history), [3, 5]);
    }
}
