//! `LlmCycle` compaction before the request: micro-compaction, then a
//! summary when that is not enough.
#![cfg(test)]

use std::sync::Arc;

use agcore_llm::compact::CompactConfig;
use agcore_llm::types::{ChatMessage, ToolCall, Usage};
use agcore_llm::{CycleConfig, LlmCycle, MockProvider};

#[tokio::test]
async fn compaction_runs_before_the_request() {
    // History: an old big tool result, then enough recent messages.
    let history = vec![
        ChatMessage::user("read it"),
        ChatMessage::assistant_tool_calls(vec![ToolCall::new("c1", "read_file", "{}")]),
        ChatMessage::tool("c1", "x".repeat(8_000)),
        ChatMessage::assistant("It is long."),
        ChatMessage::user("and then?"),
        ChatMessage::assistant("Nothing more."),
    ];
    let mock = Arc::new(MockProvider::new().push_text("ok"));
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("some-local-model"))
        .with_messages(history)
        .with_compact_config(CompactConfig::new(1_000, 200, 3));
    cycle.submit("summarise").await.unwrap();
    let sent = &mock.requests()[0];
    assert_eq!(sent.messages.len(), 7);
    assert_eq!(
        sent.messages[2].text(),
        "[tool result of `read_file` removed by microcompact: 8000 chars]"
    );
    // Microcompact was enough: no summary request was made.
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn summary_compaction_when_microcompact_is_not_enough() {
    let mut history = Vec::new();
    for i in 0..10 {
        history.push(ChatMessage::user(format!(
            "question {i} {}",
            "q".repeat(400)
        )));
        history.push(ChatMessage::assistant(format!(
            "answer {i} {}",
            "a".repeat(400)
        )));
    }
    let mock = Arc::new(
        MockProvider::new()
            .push_text_with_usage("They asked ten questions.", Usage::new(2_000, 10))
            .push_text_with_usage("ok", Usage::new(100, 1)),
    );
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("local"))
        .with_system_prompt("sys")
        .with_messages(history)
        .with_compact_config(CompactConfig::new(1_000, 100, 2));
    cycle.submit("next").await.unwrap();
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].messages[1].text().contains("question 0"));
    let sent = &requests[1].messages;
    // system prompt, summary, the last two messages (last answer, new question).
    assert_eq!(sent[0].text(), "sys");
    assert!(
        sent[1]
            .text()
            .starts_with("[Summary of the earlier conversation]\n> They asked ten questions.")
    );
    assert_eq!(sent.len(), 1 + 1 + 2);
    assert!(sent[2].text().starts_with("answer 9"));
    assert_eq!(sent[3].text(), "next");
    assert_eq!(cycle.messages().len(), 4, "summary, answer 9, next, ok");
    assert_eq!(cycle.usage().prompt_tokens, 2_100);
}

fn long_history() -> Vec<ChatMessage> {
    (0..10)
        .flat_map(|i| {
            [
                ChatMessage::user(format!("question {i} {}", "q".repeat(400))),
                ChatMessage::assistant(format!("answer {i} {}", "a".repeat(400))),
            ]
        })
        .collect()
}

#[tokio::test]
async fn summary_requests_go_to_the_summary_model() {
    let chat = Arc::new(MockProvider::new().push_text("ok"));
    let memory_model = Arc::new(MockProvider::new().push_text("Ten questions."));
    let mut cycle = LlmCycle::new_with_arc(chat.clone(), CycleConfig::new("chat-model"))
        .with_messages(long_history())
        .with_compact_config(CompactConfig::new(1_000, 100, 2))
        .with_summary_model(memory_model.clone(), "small-local");
    cycle.submit("next").await.unwrap();
    assert_eq!(chat.request_count(), 1, "the chat model answered only");
    assert_eq!(memory_model.requests()[0].model, "small-local");
    assert!(
        chat.requests()[0].messages[0]
            .text()
            .ends_with("Ten questions.")
    );
}

#[tokio::test]
async fn summary_step_off_or_below_its_trigger_makes_no_model_call() {
    for config in [
        CompactConfig::new(1_000, 100, 2).with_summarize(false),
        CompactConfig::new(1_000, 100, 2).with_summary_threshold(1_000_000),
    ] {
        let mock = Arc::new(MockProvider::new().push_text("ok"));
        let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m"))
            .with_messages(long_history())
            .with_compact_config(config);
        cycle.submit("next").await.unwrap();
        assert_eq!(mock.request_count(), 1);
        assert_eq!(mock.requests()[0].messages.len(), 21, "nothing summarised");
    }
}
