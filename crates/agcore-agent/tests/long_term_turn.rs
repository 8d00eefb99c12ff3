//! `TurnMemory`, the one owner of a conversation's long-term memory steps,
//! driven by a chat loop of its own (no agent runtime): prefetch before a
//! turn, feedback and the dialogue buffer after it, extraction every
//! `batch_size` turns, the last extraction at `finish` or on drop.
#![cfg(test)]

use std::sync::Arc;
use std::time::Duration;

use agcore_agent::turn_memory::{ExtractionModel, LongTermOptions, TurnMemory};
use agcore_llm::MockProvider;
use agcore_memory::long_term::{
    InMemoryLongTerm, InjectConfig, ListRequest, LongTermMemory, MemoryType, NewMemory,
};
use agcore_prompt::PromptTemplateRegistry;
use agcore_types::ChatMessage;

const FACT: &str = r#"{"facts": [{"content": "The user lives in Lyon", "type": "user", "tags": [], "confidence": 0.9, "replace": null}]}"#;

fn turn_memory(memory: &LongTermMemory, provider: MockProvider, batch: usize) -> TurnMemory {
    let mut inject = InjectConfig::default();
    inject.first_round_empty = false;
    let options = LongTermOptions::new().inject(inject).extract_every(batch);
    TurnMemory::new(
        memory.clone(),
        memory.scope("travel", "alice").unwrap(),
        options,
        "s1",
        ExtractionModel {
            provider: Arc::new(provider),
            model: "m".into(),
        },
        Arc::new(PromptTemplateRegistry::with_builtins().unwrap()),
    )
}

fn history(user: &str, reply: &str) -> Vec<ChatMessage> {
    vec![ChatMessage::user(user), ChatMessage::assistant(reply)]
}

#[tokio::test]
async fn before_and_after_a_turn_prefetch_record_use_and_buffer() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let alice = memory.scope("travel", "alice").unwrap();
    let saved = alice
        .save(NewMemory::new(
            MemoryType::User,
            "tea",
            "Alice prefers green tea",
        ))
        .await
        .unwrap();
    let mut turns = turn_memory(&memory, MockProvider::new(), 10);

    let query = "Which tea do I like?";
    let context = turns.before_turn(query, &[]).await.unwrap();
    assert!(context.contains("> Alice prefers green tea"), "{context}");
    let reply = "You prefer green tea.";
    turns.after_turn(reply, &history(query, reply)).await;
    // The buffer is written on the turn's path, the feedback off it.
    assert_eq!(alice.buffer_pending("s1", 10).await.unwrap().len(), 1);
    assert!(turns.flush().await.unwrap().is_none());

    let entry = alice.get(saved.entry.id).await.unwrap().unwrap();
    assert!(
        entry.weight > saved.entry.weight,
        "a referenced memory gains weight"
    );
    assert_eq!(alice.usage_log(saved.entry.id).await.unwrap().len(), 1);
    assert_eq!(alice.buffer_pending("s1", 10).await.unwrap().len(), 1);

    // Nothing relevant: nothing injected, the turn is still buffered.
    assert_eq!(
        turns.before_turn("Bonjour", &history(query, reply)).await,
        None
    );
    turns
        .after_turn("Salut", &history("Bonjour", "Salut"))
        .await;
    assert_eq!(alice.buffer_pending("s1", 10).await.unwrap().len(), 2);
}

#[tokio::test]
async fn extraction_runs_every_batch_and_finish_extracts_the_rest() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let alice = memory.scope("travel", "alice").unwrap();
    let provider = MockProvider::new()
        .push_text(FACT)
        .push_text(r#"{"facts": []}"#);
    let mut turns = turn_memory(&memory, provider, 2);
    for (user, reply) in [("I live in Lyon", "Noted."), ("Nice city", "Yes.")] {
        turns.before_turn(user, &[]).await;
        turns.after_turn(reply, &history(user, reply)).await;
    }
    let report = turns.flush().await.unwrap().unwrap();
    assert_eq!(report.turns, 2);
    assert_eq!(report.marked_applied, 2);
    let all = alice.list(&ListRequest::all()).await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].content, "The user lives in Lyon");
    // auto_tag (on by default): the model gave no tags, a rule did.
    assert!(
        all[0].tags.contains(&"lyon".to_owned()),
        "{:?}",
        all[0].tags
    );

    // One turn short of a batch: only finish sends it.
    turns.before_turn("And the weather?", &[]).await;
    turns
        .after_turn("Mild.", &history("And the weather?", "Mild."))
        .await;
    assert!(turns.flush().await.unwrap().is_none());
    let last = turns.finish().await.unwrap().unwrap();
    assert_eq!(last.turns, 1);
    assert!(alice.buffer_pending("s1", 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn dropped_without_finish_it_extracts_in_the_background() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let alice = memory.scope("travel", "alice").unwrap();
    let mut turns = turn_memory(&memory, MockProvider::new().push_text(FACT), 5);
    turns
        .after_turn("Noted.", &history("I live in Lyon", "Noted."))
        .await;
    drop(turns);
    let mut waited = Duration::ZERO;
    while alice.list(&ListRequest::all()).await.unwrap().is_empty() {
        assert!(waited < Duration::from_secs(10), "no background extraction");
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += Duration::from_millis(10);
    }
    assert!(alice.buffer_pending("s1", 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn auto_tag_off_adds_no_tags() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let alice = memory.scope("travel", "alice").unwrap();
    let tagged = FACT.replace(r#""tags": []"#, r#""tags": ["city"]"#);
    let mut extract = agcore_memory::long_term::ExtractConfig::default();
    extract.auto_tag = false;
    extract.batch_size = 1;
    let mut turns = TurnMemory::new(
        memory.clone(),
        alice.clone(),
        LongTermOptions::new().extract(extract),
        "s1",
        ExtractionModel {
            provider: Arc::new(MockProvider::new().push_text(tagged)),
            model: "m".into(),
        },
        Arc::new(PromptTemplateRegistry::with_builtins().unwrap()),
    );
    turns.before_turn("I live in Lyon", &[]).await;
    turns
        .after_turn("Noted.", &history("I live in Lyon", "Noted."))
        .await;
    turns.flush().await.unwrap().unwrap();
    let all = alice.list(&ListRequest::all()).await.unwrap();
    assert_eq!(all.len(), 1);
    assert!(all[0].tags.is_empty(), "{:?}", all[0].tags);
}
