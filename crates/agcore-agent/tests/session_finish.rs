//! `AgentSession::finish` extracts the turns left in the dialogue buffer at
//! the end of a session; a session dropped without it starts that extraction
//! in the background.
#![cfg(test)]

use std::sync::Arc;
use std::time::Duration;

use agcore_agent::{AgentBuilder, AgentSession, LongTermOptions, RuntimeBundle, SimpleAgent};
use agcore_llm::MockProvider;
use agcore_memory::MemoryError;
use agcore_memory::long_term::{InMemoryLongTerm, ListRequest, LongTermMemory};

const FACTS: &str = r#"{"facts": [{"content": "The user lives in Lyon", "type": "user", "tags": [], "confidence": 0.9, "replace": null}]}"#;

/// A bundle whose extraction (every 5 turns, so never during these short
/// sessions) answers with one fact.
fn bundle(
    memory: &LongTermMemory,
    chat: MockProvider,
) -> Result<Arc<RuntimeBundle>, agcore_agent::AgentError> {
    let extractor = Arc::new(MockProvider::new().push_text(FACTS));
    AgentBuilder::new()
        .provider(Arc::new(chat))
        .long_term_memory(
            memory.clone(),
            LongTermOptions::new()
                .extract_every(5)
                .extraction_provider(extractor),
        )
        .build()
}

fn session(bundle: &Arc<RuntimeBundle>) -> AgentSession {
    AgentSession::new(Arc::new(SimpleAgent::new("travel")), Arc::clone(bundle))
        .with_user_id("alice")
        .unwrap()
}

async fn stored(memory: &LongTermMemory) -> Result<Vec<String>, MemoryError> {
    let scoped = memory.scope("travel", "alice")?;
    Ok(scoped
        .list(&ListRequest::all())
        .await?
        .into_iter()
        .map(|e| e.content)
        .collect())
}

#[tokio::test]
async fn finish_extracts_the_last_turns() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let bundle = bundle(
        &memory,
        MockProvider::new().push_text("Hi.").push_text("Nice."),
    )
    .unwrap();
    let mut session = session(&bundle);
    session.submit_turn("Hello").await.unwrap();
    session.submit_turn("I live in Lyon.").await.unwrap();
    assert!(
        stored(&memory).await.unwrap().is_empty(),
        "no run before the batch fills"
    );

    let report = session.finish().await.unwrap().expect("an extraction ran");
    assert_eq!(report.turns, 2);
    assert_eq!(report.marked_applied, 2);
    assert_eq!(stored(&memory).await.unwrap(), ["The user lives in Lyon"]);
    // Nothing left: a second finish does nothing.
    assert!(session.finish().await.unwrap().is_none());
}

#[tokio::test]
async fn a_dropped_session_extracts_in_the_background() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let bundle = bundle(&memory, MockProvider::new().push_text("Nice.")).unwrap();
    let mut session = session(&bundle);
    session.submit_turn("I live in Lyon.").await.unwrap();
    drop(session);
    // The background run writes the fact; wait for it (bounded).
    let mut found = Vec::new();
    for _ in 0..200 {
        found = stored(&memory).await.unwrap();
        if !found.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(found, ["The user lives in Lyon"]);
}
