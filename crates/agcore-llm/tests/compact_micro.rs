//! `should_compact` thresholds and `microcompact`.
#![cfg(test)]

use agcore_llm::compact::{CompactConfig, is_microcompact_marker, microcompact, should_compact};
use agcore_llm::tokens::TokenCounter;
use agcore_llm::types::{ChatMessage, Role, ToolCall};
use proptest::prelude::*;

fn conversation() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("You are helpful."),
        ChatMessage::user("look up two things"),
        ChatMessage::assistant_tool_calls(vec![
            ToolCall::new("a", "search", r#"{"q":"rust"}"#),
            ToolCall::new("b", "fetch", r#"{"url":"x"}"#),
        ]),
        ChatMessage::tool("a", "r".repeat(3_000)),
        ChatMessage::tool("b", "页".repeat(2_000)),
        ChatMessage::assistant("Found both."),
        ChatMessage::user("again"),
        ChatMessage::assistant_tool_calls(vec![ToolCall::new("c", "search", "{}")]),
        ChatMessage::tool("c", "s".repeat(3_000)),
        ChatMessage::assistant("Done."),
    ]
}

#[test]
fn marker_says_what_was_removed() {
    let mut messages = conversation();
    let n = microcompact(&mut messages, &CompactConfig::new(0, 0, 3));
    assert_eq!(n, 2);
    assert_eq!(
        messages[3].text(),
        "[tool result of `search` removed by microcompact: 3000 chars]"
    );
    assert_eq!(
        messages[4].text(),
        "[tool result of `fetch` removed by microcompact: 2000 chars]"
    );
    // Within keep_recent: untouched.
    assert_eq!(messages[8].text().len(), 3_000);
}

#[test]
fn keep_recent_bounds_what_is_touched() {
    for keep in 0..=conversation().len() + 2 {
        let mut messages = conversation();
        let original = conversation();
        microcompact(&mut messages, &CompactConfig::new(0, 0, keep));
        let boundary = original.len().saturating_sub(keep);
        for (i, (after, before)) in messages.iter().zip(&original).enumerate() {
            if i >= boundary || before.role != Role::Tool {
                assert_eq!(after, before, "message {i} with keep_recent {keep}");
            } else {
                assert!(is_microcompact_marker(&after.text()), "message {i}");
            }
        }
    }
}

#[test]
fn idempotent() {
    let mut messages = conversation();
    let config = CompactConfig::new(0, 0, 0);
    assert_eq!(microcompact(&mut messages, &config), 3);
    let once = messages.clone();
    assert_eq!(microcompact(&mut messages, &config), 0);
    assert_eq!(messages, once);
}

#[test]
fn never_separates_a_call_from_its_result() {
    let mut messages = conversation();
    let before = messages.clone();
    microcompact(&mut messages, &CompactConfig::new(0, 0, 0));
    assert_eq!(messages.len(), before.len());
    for (after, before) in messages.iter().zip(&before) {
        assert_eq!(after.role, before.role);
        assert_eq!(after.tool_call_id, before.tool_call_id);
        assert_eq!(after.tool_calls, before.tool_calls);
    }
}

#[test]
fn should_compact_thresholds() {
    let messages = conversation();
    let counter = TokenCounter::estimate();
    let tokens = counter.count_messages(&messages);
    assert_eq!(CompactConfig::new(0, 0, 0).count_tokens(&messages), tokens);
    // Over when tokens > context_window - reserved_tokens.
    assert!(!should_compact(
        &messages,
        &CompactConfig::new(tokens + 100, 100, 4)
    ));
    assert!(should_compact(
        &messages,
        &CompactConfig::new(tokens + 100, 101, 4)
    ));
    assert!(!should_compact(
        &messages,
        &CompactConfig::new(tokens, 0, 4)
    ));
    assert!(should_compact(
        &messages,
        &CompactConfig::new(tokens - 1, 0, 4)
    ));
    assert!(should_compact(&messages, &CompactConfig::new(10, 1_000, 4)));
    // Compacting brings it back under.
    let config = CompactConfig::new(tokens / 2, 0, 3);
    let mut compacted = messages.clone();
    assert!(should_compact(&compacted, &config));
    microcompact(&mut compacted, &config);
    assert!(!should_compact(&compacted, &config));
}

#[test]
fn exact_counts_for_openai_models() {
    let messages = vec![ChatMessage::user("hello world")];
    let config = CompactConfig::new(100, 0, 0).with_model("gpt-4o");
    assert_eq!(config.count_tokens(&messages), 3 + 1 + 2 + 3);
    assert!(config.token_counter().is_exact());
    // Chinese text is counted, and the estimate errs high (1 token per character).
    let zh = vec![ChatMessage::user("我们明天去北京开会")];
    let exact = CompactConfig::new(0, 0, 0)
        .with_model("gpt-4o")
        .count_tokens(&zh);
    let estimate = CompactConfig::new(0, 0, 0).count_tokens(&zh);
    assert!(exact > 6 && estimate >= exact, "{exact} {estimate}");
}

proptest! {
    #[test]
    fn microcompact_is_idempotent_and_keeps_structure(
        sizes in proptest::collection::vec(0usize..400, 1..12),
        keep in 0usize..8,
    ) {
        let mut messages = Vec::new();
        for (i, size) in sizes.iter().enumerate() {
            let id = format!("id{i}");
            messages.push(ChatMessage::assistant_tool_calls(vec![ToolCall::new(&id, "t", "{}")]));
            messages.push(ChatMessage::tool(&id, "z".repeat(*size)));
        }
        let config = CompactConfig::new(0, 0, keep);
        let original = messages.clone();
        let n = microcompact(&mut messages, &config);
        let once = messages.clone();
        prop_assert_eq!(microcompact(&mut messages, &config), 0);
        prop_assert_eq!(&messages, &once);
        prop_assert_eq!(messages.len(), original.len());
        let changed = messages.iter().zip(&original).filter(|(a, b)| a != b).count();
        prop_assert_eq!(changed, n);
        for (a, b) in messages.iter().zip(&original) {
            prop_assert_eq!(&a.tool_call_id, &b.tool_call_id);
            prop_assert!(a.text().chars().count() <= b.text().chars().count());
        }
    }
}
