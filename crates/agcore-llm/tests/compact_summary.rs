//! Summary compaction with a scripted provider.
#![cfg(test)]

use agcore_llm::compact::{CompactConfig, summarize, summary_split};
use agcore_llm::types::{ChatMessage, Role, ToolCall, Usage};
use agcore_llm::{LlmError, MockProvider};

fn history() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("sys"),
        ChatMessage::user("我叫小王,住在上海。"),
        ChatMessage::assistant("好的,小王。"),
        ChatMessage::user("weather?"),
        ChatMessage::assistant_tool_calls(vec![ToolCall::new(
            "w1",
            "weather",
            r#"{"city":"Shanghai"}"#,
        )]),
        ChatMessage::tool("w1", "sunny, 21°C"),
        ChatMessage::assistant("Sunny."),
        ChatMessage::user("thanks"),
    ]
}

#[tokio::test]
async fn replaces_the_older_part_with_one_summary() {
    let mock = MockProvider::new().push_text_with_usage(
        "User 小王 lives in Shanghai; asked weather.",
        Usage::new(120, 12),
    );
    let mut messages = history();
    // keep_recent 3 would cut between the tool call and its result: the call moves to the recent part.
    let config = CompactConfig::new(100, 10, 3);
    assert_eq!(summary_split(&messages, 3), (1, 4));
    let outcome = summarize(&mock, "summariser", &mut messages, &config)
        .await
        .unwrap();
    assert_eq!(outcome.summarized, 3);
    assert_eq!(outcome.usage.unwrap().total_tokens, 132);

    assert_eq!(messages.len(), 1 + 1 + 4);
    assert_eq!(messages[0].text(), "sys");
    assert_eq!(messages[1].role, Role::User);
    assert_eq!(
        messages[1].text(),
        "[Summary of the earlier conversation]\n> User 小王 lives in Shanghai; asked weather."
    );
    assert_eq!(messages[2].tool_calls[0].id, "w1");
    assert_eq!(messages[3].tool_call_id.as_deref(), Some("w1"));
    assert_eq!(messages[5].text(), "thanks");

    // The request carried the older part as a transcript, and the model asked for.
    let request = &mock.requests()[0];
    assert_eq!(request.model, "summariser");
    assert_eq!(request.messages[0].role, Role::System);
    let transcript = request.messages[1].text();
    assert!(
        transcript.contains("user:\n> 我叫小王,住在上海。"),
        "{transcript}"
    );
    assert!(transcript.contains("user:\n> weather?"), "{transcript}");
    assert!(!transcript.contains("thanks"));
    assert!(!transcript.contains("sys"));
}

#[tokio::test]
async fn nothing_to_summarise_makes_no_request() {
    let mock = MockProvider::new();
    let mut messages = history();
    let outcome = summarize(&mock, "m", &mut messages, &CompactConfig::new(100, 10, 50))
        .await
        .unwrap();
    assert_eq!(outcome.summarized, 0);
    assert_eq!(messages, history());
    assert_eq!(mock.request_count(), 0);
}

#[tokio::test]
async fn failures_leave_the_messages_unchanged() {
    let mock = MockProvider::new()
        .push_error(LlmError::Server {
            status: 500,
            message: "boom".into(),
        })
        .push_text("   ");
    let mut messages = history();
    let config = CompactConfig::new(100, 10, 2);
    assert!(matches!(
        summarize(&mock, "m", &mut messages, &config).await,
        Err(LlmError::Server { .. })
    ));
    assert_eq!(messages, history());
    assert!(matches!(
        summarize(&mock, "m", &mut messages, &config).await,
        Err(LlmError::Decode { .. })
    ));
    assert_eq!(messages, history());
}

#[tokio::test]
async fn the_summary_instruction_can_be_replaced() {
    let mock = MockProvider::new().push_text("short");
    let mut messages = history();
    let config = CompactConfig::new(100, 10, 3);
    summarize(&mock, "m", &mut messages, &config).await.unwrap();
    assert_eq!(
        mock.requests()[0].messages[0].text(),
        agcore_llm::compact::SUMMARY_INSTRUCTION
    );
    let mock = MockProvider::new().push_text("short");
    let mut messages = history();
    let config = config.with_summary_instruction("Summarise in one line.");
    summarize(&mock, "m", &mut messages, &config).await.unwrap();
    assert_eq!(
        mock.requests()[0].messages[0].text(),
        "Summarise in one line."
    );
}
