//! Dialogue buffer and background fact extraction with `MockProvider`:
//! malformed, partial and timed-out replies keep the buffer for a later run.
#![cfg(test)]

use std::sync::Arc;
use std::time::Duration;

use agcore_agent::{
    AgentBuilder, AgentConfig, AgentError, AgentSession, LongTermOptions, SimpleAgent,
};
use agcore_llm::{HookExecutor, MockProvider};
use agcore_memory::long_term::{InMemoryLongTerm, ListRequest, LongTermMemory, ScopedMemory};
use agcore_tools::ToolRegistry;

const GOOD: &str = r#"{"facts": [
  {"content": "Alice is a nurse", "type": "user", "tags": ["job"], "confidence": 0.9},
  {"content": "Alice might like opera", "type": "user", "confidence": 0.3}
]}"#;

struct Fixture {
    chat: Arc<MockProvider>,
    extractor: Arc<MockProvider>,
    session: AgentSession,
    scope: ScopedMemory,
}

fn fixture(extractor: MockProvider, turns: usize) -> Fixture {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let mut chat = MockProvider::new();
    for i in 0..turns {
        chat = chat.push_text(format!("reply {i}"));
    }
    let chat = Arc::new(chat);
    let extractor = Arc::new(extractor);
    let options = LongTermOptions::new()
        .extract_every(2)
        .extraction_provider(extractor.clone())
        .extraction_model("extractor-model")
        .extraction_timeout(Duration::from_millis(200));
    let bundle = AgentBuilder::new()
        .provider(chat.clone())
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .config(AgentConfig::new("m"))
        .long_term_memory(memory.clone(), options)
        .build()
        .unwrap();
    let session = AgentSession::with_id("s1", Arc::new(SimpleAgent::new("assistant")), bundle)
        .with_user_id("alice")
        .unwrap();
    let scope = memory.scope("assistant", "alice").unwrap();
    Fixture {
        chat,
        extractor,
        session,
        scope,
    }
}

async fn turns(f: &mut Fixture, messages: &[&str]) {
    for m in messages {
        f.session.submit_turn(*m).await.unwrap();
    }
}

async fn contents(scope: &ScopedMemory) -> Vec<String> {
    let mut all: Vec<String> = scope
        .list(&ListRequest::all())
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.content)
        .collect();
    all.sort();
    all
}

#[tokio::test]
async fn malformed_reply_keeps_the_buffer_and_a_later_run_applies_it() {
    let mut f = fixture(
        MockProvider::new()
            .push_text("Sorry, I cannot do that.")
            .push_text("Still no JSON, sorry.")
            .push_text(GOOD),
        4,
    );
    turns(&mut f, &["I work as a nurse", "nights mostly"]).await;
    // The first reply is not JSON and neither is the reply to the repair request.
    let err = f.session.flush_memory().await.unwrap_err();
    assert!(matches!(err, AgentError::Memory(_)), "{err}");
    assert_eq!(f.scope.buffer_pending("s1", 100).await.unwrap().len(), 2);
    assert!(contents(&f.scope).await.is_empty());
    assert!(f.session.flush_memory().await.unwrap().is_none());

    turns(&mut f, &["and I like tea", "thanks"]).await;
    let report = f.session.flush_memory().await.unwrap().unwrap();
    assert_eq!(report.turns, 4);
    assert_eq!(report.facts.created.len(), 1);
    assert_eq!(report.facts.below_confidence, 1);
    assert_eq!(report.marked_applied, 4);
    assert!(f.scope.buffer_pending("s1", 100).await.unwrap().is_empty());
    assert_eq!(contents(&f.scope).await, ["Alice is a nurse"]);
    let requests = f.extractor.requests();
    assert_eq!(requests.len(), 3);
    let repair = requests[1].messages.last().unwrap().text();
    assert!(repair.contains("could not be read"), "{repair}");
    assert_eq!(requests[1].messages[2].text(), "Sorry, I cannot do that.");
    assert_eq!(requests[2].model, "extractor-model");
    let system = requests[2].messages[0].text();
    assert!(!system.contains("I work as a nurse"), "{system}");
    let data: serde_json::Value = serde_json::from_str(&requests[2].messages[1].text()).unwrap();
    let dialogue = data["dialogue"].as_array().unwrap();
    assert_eq!(dialogue[0]["user"], "I work as a nurse");
    assert_eq!(dialogue[0]["assistant"], "reply 0");
    assert_eq!(dialogue[3]["user"], "thanks");
    assert_eq!(dialogue[3]["assistant"], "reply 3");
    // The chat provider only saw the four turns.
    assert_eq!(f.chat.request_count(), 4);
}

#[tokio::test]
async fn partial_json_applies_complete_facts_and_keeps_the_buffer() {
    let partial = r#"{"facts": [{"content": "Alice is a nurse", "type": "user", "confidence": 0.9}, {"content": "Alice li"#;
    let mut f = fixture(MockProvider::new().push_text(partial).push_text(GOOD), 4);
    turns(&mut f, &["I work as a nurse", "nights mostly"]).await;
    let report = f.session.flush_memory().await.unwrap().unwrap();
    assert!(report.truncated);
    assert_eq!(report.facts.created.len(), 1);
    assert_eq!(report.marked_applied, 0);
    assert_eq!(f.scope.buffer_pending("s1", 100).await.unwrap().len(), 2);

    // The retry reads the turns again; the same fact updates, not duplicates.
    turns(&mut f, &["more", "talk"]).await;
    let report = f.session.flush_memory().await.unwrap().unwrap();
    assert!(!report.truncated);
    assert!(report.facts.created.is_empty());
    assert_eq!(report.facts.updated.len(), 1);
    assert_eq!(report.marked_applied, 4);
    assert_eq!(contents(&f.scope).await, ["Alice is a nurse"]);
}

#[tokio::test]
async fn a_model_that_times_out_keeps_the_buffer_and_the_turn_does_not_wait() {
    let mut f = fixture(MockProvider::new().push_pending().push_text(GOOD), 4);
    turns(&mut f, &["I work as a nurse", "nights mostly"]).await;
    // The turn returned while the extraction request hangs.
    assert_eq!(f.session.history().len(), 4);
    let err = f.session.flush_memory().await.unwrap_err();
    assert!(
        matches!(
            err,
            AgentError::Memory(agcore_memory::MemoryError::Timeout(_))
        ),
        "{err}"
    );
    assert!(err.is_recoverable());
    assert_eq!(f.scope.buffer_pending("s1", 100).await.unwrap().len(), 2);

    turns(&mut f, &["third", "fourth"]).await;
    let report = f.session.flush_memory().await.unwrap().unwrap();
    assert_eq!(report.turns, 4);
    assert_eq!(contents(&f.scope).await, ["Alice is a nurse"]);
    assert!(f.scope.buffer_pending("s1", 100).await.unwrap().is_empty());
}

#[tokio::test]
async fn extraction_waits_for_batch_size_turns() {
    let mut f = fixture(MockProvider::new().push_text(GOOD), 3);
    turns(&mut f, &["I work as a nurse"]).await;
    assert!(f.session.flush_memory().await.unwrap().is_none());
    assert_eq!(f.extractor.request_count(), 0);
    turns(&mut f, &["nights"]).await;
    assert!(f.session.flush_memory().await.unwrap().is_some());
    assert_eq!(f.extractor.request_count(), 1);
    turns(&mut f, &["hmm"]).await;
    assert!(f.session.flush_memory().await.unwrap().is_none());
    // The third turn stays buffered for the next run.
    assert_eq!(f.scope.buffer_pending("s1", 100).await.unwrap().len(), 1);
}
