//! Prefetch of long-term memories into the system prompt: the block's
//! format (`docs/memory.md`, *Prefetch*), each injection rule, the token budget, usage recording.
#![cfg(test)]

use std::sync::Arc;

use agcore_agent::long_term::{
    InstructionLanguage, MEMORY_CONTEXT_HEADER_EN, MEMORY_CONTEXT_HEADER_ZH,
    MEMORY_CONTEXT_PREAMBLE_EN, MEMORY_CONTEXT_PREAMBLE_ZH, MEMORY_INSTRUCTIONS_EN,
    MEMORY_INSTRUCTIONS_ZH, format_memory_context,
};
use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore_llm::tokens::TokenCounter;
use agcore_llm::{HookExecutor, MockProvider};
use agcore_memory::long_term::{
    InMemoryLongTerm, InjectConfig, LongTermMemory, MemoryType, NewMemory,
};
use agcore_tools::ToolRegistry;
use agcore_types::ChatRequest;

fn system_of(request: &ChatRequest) -> String {
    let first = &request.messages[0];
    assert_eq!(first.role, agcore_types::Role::System);
    first.text()
}

async fn seeded() -> (LongTermMemory, i64) {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let alice = memory.scope("assistant", "alice").unwrap();
    let id = alice
        .save(NewMemory::new(
            MemoryType::User,
            "drink",
            "Alice prefers green tea",
        ))
        .await
        .unwrap()
        .entry
        .id;
    (memory, id)
}

fn session(
    provider: &Arc<MockProvider>,
    memory: &LongTermMemory,
    options: LongTermOptions,
) -> AgentSession {
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .base_prompt("BASE")
        .config(AgentConfig::new("m"))
        .long_term_memory(memory.clone(), options.extraction(false))
        .build()
        .unwrap();
    AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle)
        .with_user_id("alice")
        .unwrap()
}

#[tokio::test]
async fn injection_rules_format_and_history() {
    let (memory, id) = seeded().await;
    let provider = Arc::new(
        MockProvider::new()
            .push_text("first")
            .push_text("fine")
            .push_text("You like green tea, so try a sencha.")
            .push_text("no idea"),
    );
    // The default prefetches every turn; this test turns the first-round rule on.
    assert!(!InjectConfig::default().first_round_empty);
    let mut inject = InjectConfig::default();
    inject.first_round_empty = true;
    let mut s = session(&provider, &memory, LongTermOptions::new().inject(inject));
    s.submit_turn("Which green tea should I buy?")
        .await
        .unwrap(); // first round: empty
    s.submit_turn("ok").await.unwrap(); // shorter than min_query_length
    s.submit_turn("recommend a green tea for me").await.unwrap(); // injected
    s.submit_turn("rocket launch schedule").await.unwrap(); // nothing found
    let requests = provider.requests();
    let expected = format!(
        "<memory-context>\n{MEMORY_CONTEXT_PREAMBLE_EN}\n\n[user] drink\n> Alice prefers green tea\n</memory-context>"
    );
    for (i, request) in requests.iter().enumerate() {
        let system = system_of(request);
        assert!(system.starts_with("BASE"), "{system}");
        assert!(system.ends_with(MEMORY_INSTRUCTIONS_EN), "{system}");
        assert_eq!(system.contains(&expected), i == 2, "request {i}: {system}");
        assert_eq!(system.contains("<memory-context>"), i == 2, "request {i}");
    }
    // The block never reaches the stored history.
    for message in s.history() {
        assert!(!message.text().contains("memory-context"));
        assert!(!message.text().contains(MEMORY_CONTEXT_HEADER_EN));
    }
    // The reply used the memory: one use recorded (off the turn's path:
    // flush waits for it), weight raised.
    s.flush_memory().await.unwrap();
    let entry = memory
        .scope("assistant", "alice")
        .unwrap()
        .get(id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(entry.use_count, 1);
    assert!(entry.weight > 1.0, "{}", entry.weight);
}

#[tokio::test]
async fn first_round_injects_when_allowed_and_limit_and_language_apply() {
    let (memory, _) = seeded().await;
    let alice = memory.scope("assistant", "alice").unwrap();
    alice
        .save(NewMemory::new(
            MemoryType::Project,
            "tea shop",
            "The green tea shop opens at nine",
        ))
        .await
        .unwrap();
    let provider = Arc::new(MockProvider::new().push_text("a"));
    let mut inject = InjectConfig::default();
    inject.first_round_empty = false;
    let options = LongTermOptions::new()
        .inject(inject)
        .prefetch_limit(1)
        .language(InstructionLanguage::Chinese);
    let mut s = session(&provider, &memory, options);
    s.submit_turn("tell me about green tea").await.unwrap();
    let system = system_of(&provider.requests()[0]);
    assert!(system.contains("<memory-context>"), "{system}");
    assert_eq!(system.matches("\n[").count(), 1, "limit 1: {system}");
    assert!(system.ends_with(MEMORY_INSTRUCTIONS_ZH));
    assert!(system.contains(MEMORY_CONTEXT_HEADER_ZH), "{system}");
    assert!(!system.contains(MEMORY_INSTRUCTIONS_EN));
}

#[tokio::test]
async fn a_session_without_user_id_or_with_prefetch_off_injects_nothing() {
    let (memory, _) = seeded().await;
    let mut inject = InjectConfig::default();
    inject.first_round_empty = false;
    let provider = Arc::new(MockProvider::new().push_text("a").push_text("b"));
    let mut off = session(
        &provider,
        &memory,
        LongTermOptions::new()
            .inject(inject.clone())
            .prefetch(false),
    );
    off.submit_turn("green tea please").await.unwrap();
    let bundle = off.bundle().clone();
    let mut anonymous = AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle);
    anonymous.submit_turn("green tea please").await.unwrap();
    let requests = provider.requests();
    for request in &requests {
        assert!(!system_of(request).contains("<memory-context>"));
    }
    // Without a user id long-term memory is off: no instructions either.
    assert!(system_of(&requests[0]).ends_with(MEMORY_INSTRUCTIONS_EN));
    assert!(!system_of(&requests[1]).contains(MEMORY_INSTRUCTIONS_EN));
}

#[test]
fn token_budget_keeps_the_entries_that_fit_in_order() {
    let counter = TokenCounter::estimate();
    let make = |id, name: &str, content: &str| {
        let mut e: agcore_memory::long_term::MemoryEntry =
            serde_json::from_value(serde_json::json!({
                "id": id, "agent_name": "a", "user_id": "u", "memory_type": "user", "name": name,
                "content": content, "description": "", "metadata": {}, "tags": [], "weight": 1.0,
                "archived": false, "use_count": 0, "last_used_at": null,
                "weight_updated_at": "2026-01-01T00:00:00Z", "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z"
            }))
            .unwrap();
        e.id = id;
        e
    };
    let entries = vec![
        make(1, "短", "用户喜欢绿茶"),
        make(2, "long", &"a very long memory text ".repeat(40)),
        make(3, "short", "tiny"),
    ];
    let first_only = counter.count_text(MEMORY_CONTEXT_PREAMBLE_ZH)
        + counter.count_text("\n\n[user] 短\n> 用户喜欢绿茶");
    let (body, kept) =
        format_memory_context(MEMORY_CONTEXT_PREAMBLE_ZH, &entries, first_only, &counter).unwrap();
    assert_eq!(kept.iter().map(|e| e.id).collect::<Vec<_>>(), [1]);
    assert_eq!(
        body,
        format!("{MEMORY_CONTEXT_PREAMBLE_ZH}\n\n[user] 短\n> 用户喜欢绿茶")
    );
    assert!(
        format_memory_context(
            MEMORY_CONTEXT_PREAMBLE_ZH,
            &entries,
            first_only - 1,
            &counter
        )
        .is_none()
    );
    assert!(format_memory_context(MEMORY_CONTEXT_HEADER_ZH, &[], 10_000, &counter).is_none());
    let (_, all) =
        format_memory_context(MEMORY_CONTEXT_HEADER_ZH, &entries, 10_000, &counter).unwrap();
    assert_eq!(all.len(), 3);
}
