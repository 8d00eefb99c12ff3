//! Recall feedback: entries returned by a `memory_recall` call are recorded
//! at the end of the turn like prefetched ones — used (weight raised) when
//! the reply refers to them, shown (weight decayed) when it does not.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::SimpleAgent;
use agcore_agent::{AgentBuilder, AgentSession, LongTermOptions};
use agcore_llm::MockProvider;
use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemoryType, NewMemory};

#[tokio::test]
async fn recalled_entries_are_recorded_as_used_or_shown() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let scope = memory.scope("assistant", "alice").unwrap();
    let tea = scope
        .save(NewMemory::new(
            MemoryType::User,
            "drink",
            "Alice prefers green tea",
        ))
        .await
        .unwrap()
        .entry;
    let chat = Arc::new(
        MockProvider::new()
            .push_tool_call("memory_recall", r#"{"query": "drink"}"#)
            .push_text("You prefer green tea, so a sencha.")
            .push_tool_call("memory_recall", r#"{"query": "drink"}"#)
            .push_text("Let me check the weather instead."),
    );
    // No prefetch, so only the tool shows the memory.
    let bundle = AgentBuilder::new()
        .provider(chat)
        .long_term_memory(
            memory.clone(),
            LongTermOptions::new().prefetch(false).extraction(false),
        )
        .build()
        .unwrap();
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle)
        .with_user_id("alice")
        .unwrap();

    session.submit_turn("What should I drink?").await.unwrap();
    // Feedback is written off the turn's path; flush waits for it.
    session.flush_memory().await.unwrap();
    let used = scope.get(tea.id).await.unwrap().unwrap();
    assert_eq!(used.use_count, 1);
    assert!(used.weight > tea.weight, "{} > {}", used.weight, tea.weight);

    session.submit_turn("Anything else?").await.unwrap();
    session.flush_memory().await.unwrap();
    let shown = scope.get(tea.id).await.unwrap().unwrap();
    assert_eq!(shown.use_count, 2);
    assert!(
        shown.weight < used.weight,
        "{} < {}",
        shown.weight,
        used.weight
    );
    let log = scope.usage_log(tea.id).await.unwrap();
    let referenced: Vec<bool> = log.iter().map(|row| row.was_referenced).collect();
    assert_eq!(referenced.len(), 2, "{log:?}");
    assert!(
        referenced.contains(&true) && referenced.contains(&false),
        "{log:?}"
    );
}
