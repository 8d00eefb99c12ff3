use agcore_types::{ChatMessage, MessageContent, Role};

use super::CompactConfig;

const MARKER_PREFIX: &str = "[tool result of `";
const MARKER_INFIX: &str = "` removed by microcompact: ";

/// Replaces the content of tool-result messages older than the last
/// `config.keep_recent` messages with a marker
/// `` [tool result of `NAME` removed by microcompact: N chars] `` and returns
/// how many messages were shrunk.
///
/// `NAME` is the function name of the tool call the result answers (looked up
/// by `tool_call_id` in the assistant messages before it; the message's `name`
/// or `unknown` when not found); `N` is the removed content's length in Unicode
/// scalar values. Messages are never removed or reordered, so a tool result
/// stays right after its call and keeps its `tool_call_id`.
///
/// Only results longer than their marker are replaced, and results that are
/// already markers are left alone: calling it again changes nothing
/// (idempotent).
pub fn microcompact(messages: &mut [ChatMessage], config: &CompactConfig) -> usize {
    let end = messages.len().saturating_sub(config.keep_recent);
    let mut shrunk = 0;
    for i in 0..end {
        let Some(message) = messages.get(i) else {
            break;
        };
        if message.role != Role::Tool {
            continue;
        }
        let text = message.text();
        if is_microcompact_marker(&text) {
            continue;
        }
        let name = tool_name_for(messages, i);
        let marker = format!(
            "{MARKER_PREFIX}{name}{MARKER_INFIX}{} chars]",
            text.chars().count()
        );
        if marker.chars().count() >= text.chars().count() {
            continue;
        }
        if let Some(message) = messages.get_mut(i) {
            message.content = Some(MessageContent::Text(marker));
            shrunk += 1;
        }
    }
    shrunk
}

/// Whether `text` is a marker left by [`microcompact`].
pub fn is_microcompact_marker(text: &str) -> bool {
    text.starts_with(MARKER_PREFIX) && text.contains(MARKER_INFIX) && text.ends_with(" chars]")
}

/// The function name of the call the tool message at `index` answers.
fn tool_name_for(messages: &[ChatMessage], index: usize) -> String {
    let Some(message) = messages.get(index) else {
        return "unknown".to_owned();
    };
    if let Some(id) = message.tool_call_id.as_deref() {
        let before = messages.get(..index).unwrap_or_default();
        for earlier in before.iter().rev() {
            if let Some(call) = earlier.tool_calls.iter().find(|c| c.id == id) {
                return call.function.name.clone();
            }
        }
    }
    message.name.clone().unwrap_or_else(|| "unknown".to_owned())
}

#[cfg(test)]
mod tests {
    use agcore_types::ToolCall;

    use super::*;

    #[test]
    fn marker_names_the_tool_and_size() {
        let mut messages = vec![
            ChatMessage::assistant_tool_calls(vec![ToolCall::new("a", "search", "{}")]),
            ChatMessage::tool("a", "日本語".repeat(40)),
            ChatMessage::user("next"),
        ];
        assert_eq!(microcompact(&mut messages, &CompactConfig::new(0, 0, 1)), 1);
        let text = messages[1].text();
        assert_eq!(
            text,
            "[tool result of `search` removed by microcompact: 120 chars]"
        );
        assert!(is_microcompact_marker(&text));
        assert_eq!(messages[1].tool_call_id.as_deref(), Some("a"));
    }

    #[test]
    fn short_results_and_unknown_calls() {
        let mut messages = vec![
            ChatMessage::tool("x", "ok"),
            ChatMessage::tool("y", "z".repeat(200)),
        ];
        assert_eq!(microcompact(&mut messages, &CompactConfig::new(0, 0, 0)), 1);
        assert_eq!(messages[0].text(), "ok");
        assert!(messages[1].text().starts_with("[tool result of `unknown`"));
    }
}
