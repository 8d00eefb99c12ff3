//! The session keys of a memory configuration file acting on a running
//! session (`AgentConfig::with_memory_settings`): `memory.max_history`
//! trims the history, the trimmed turns come back as short-term memory,
//! and `memory_agent.summarize` has the memory model write the summary.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore_llm::MockProvider;
use agcore_llm::compact::CompactConfig;
use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemorySettings};
use agcore_types::Role;

fn session(
    settings: &str,
    config: AgentConfig,
    chat: Arc<MockProvider>,
    memory_model: Option<Arc<MockProvider>>,
) -> AgentSession {
    let settings = MemorySettings::from_toml_str(settings).unwrap();
    let mut options = LongTermOptions::from_settings(&settings)
        .unwrap()
        .extraction(false);
    if let Some(model) = memory_model {
        options = options
            .extraction_provider(model)
            .extraction_model("small-memory-model");
    }
    let bundle = AgentBuilder::new()
        .provider(chat)
        .config(config.with_memory_settings(&settings))
        .long_term_memory(LongTermMemory::new(InMemoryLongTerm::new()), options)
        .build()
        .unwrap();
    AgentSession::with_id("s1", Arc::new(SimpleAgent::new("assistant")), bundle)
        .with_user_id("alice")
        .unwrap()
}

#[tokio::test]
async fn max_history_trims_and_short_term_memory_brings_the_turns_back() {
    let mut chat = MockProvider::new();
    for i in 0..5 {
        chat = chat.push_text(format!("answer {i}"));
    }
    let chat = Arc::new(chat);
    let mut session = session(
        "[memory]\nmax_history = 4\n[memory.inject]\nshort_term_count = 2\n",
        AgentConfig::new("chat-model"),
        Arc::clone(&chat),
        None,
    );
    for i in 0..5 {
        session
            .submit_turn(format!("question {i} about Lyon"))
            .await
            .unwrap();
    }
    let history = session.history();
    assert_eq!(history.len(), 4);
    assert_eq!(history[0].role, Role::User);
    assert_eq!(history[0].text(), "question 3 about Lyon");

    // The last request was sent with turns 2 and 3 as history; its memory
    // context quoted the two turns before them.
    let last = chat.requests().last().cloned().unwrap();
    let system = last.messages[0].text();
    assert!(system.contains("> question 0 about Lyon"), "{system}");
    assert!(system.contains("> question 1 about Lyon"), "{system}");
    assert!(!system.contains("> question 2 about Lyon"), "{system}");
}

#[tokio::test]
async fn summaries_are_written_by_the_memory_model() {
    let chat = Arc::new(
        MockProvider::new()
            .push_text("x".repeat(800))
            .push_text("y".repeat(800))
            .push_text("done"),
    );
    let memory_model = Arc::new(
        MockProvider::new()
            .push_text("They talked about x.")
            .push_text("They talked about x and y.")
            .push_text("They talked about x and y."),
    );
    let mut session = session(
        "[memory]\nmax_history = 0\n[memory.short_term]\ncompression_threshold = 0\n\
         [memory_agent.summarize]\nenabled = true\ntrigger_tokens = 300\n",
        // The window and reserve come from the settings; the last two
        // messages stay out of the summary.
        AgentConfig::new("chat-model").with_compact_config(CompactConfig::new(0, 0, 2)),
        Arc::clone(&chat),
        Some(Arc::clone(&memory_model)),
    );
    for q in ["first", "second", "third"] {
        session.submit_turn(q).await.unwrap();
    }
    let summary = memory_model.requests();
    assert!(!summary.is_empty(), "the history was summarised");
    assert!(summary.iter().all(|r| r.model == "small-memory-model"));
    assert_eq!(chat.request_count(), 3, "the chat model never summarised");
    let last = chat.requests().last().cloned().unwrap();
    assert!(
        last.messages
            .iter()
            .any(|m| m.text().contains("[Summary of the earlier conversation]")),
        "{:?}",
        last.messages
    );
}
