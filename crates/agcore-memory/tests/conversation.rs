//! ConversationMemory: order, strategies, capacity, compaction, sessions.
#![cfg(test)]

use std::sync::Arc;

use agcore_llm::compact::CompactConfig;
use agcore_memory::{
    ConversationMemory, ConversationMemoryConfig, InMemoryStore, MemoryError, MemoryFilter,
    MemoryStore,
};
use agcore_types::{ChatMessage, Role, ToolCall};

fn texts(history: &[ChatMessage]) -> Vec<String> {
    history.iter().map(ChatMessage::text).collect()
}

#[tokio::test]
async fn full_history_keeps_order_by_sequence_not_time() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    let memory =
        ConversationMemory::new(Arc::clone(&store), "s1", ConversationMemoryConfig::full())
            .unwrap();
    for i in 0..15 {
        let seq = memory
            .add_message(ChatMessage::user(format!("m{i}")))
            .await
            .unwrap();
        assert_eq!(seq, i);
    }
    let history = memory.get_history().await.unwrap();
    assert_eq!(
        texts(&history),
        (0..15).map(|i| format!("m{i}")).collect::<Vec<_>>()
    );
    let ids: Vec<String> = store
        .list(&MemoryFilter::with_prefix("conv:s1:"))
        .await
        .unwrap()
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert!(
        ids.contains(&"conv:s1:00000000000000000010".to_owned()),
        "{ids:?}"
    );

    // A second instance over the same store continues the numbering.
    let again = ConversationMemory::new(Arc::clone(&store), "s1", ConversationMemoryConfig::full())
        .unwrap();
    assert_eq!(
        again
            .add_message(ChatMessage::assistant("late"))
            .await
            .unwrap(),
        15
    );
    assert_eq!(again.len().await.unwrap(), 16);
}

#[tokio::test]
async fn sliding_window_keeps_last_turns_and_system_prompt() {
    let store = Arc::new(InMemoryStore::new());
    let memory =
        ConversationMemory::new(store, "w", ConversationMemoryConfig::sliding_window(2)).unwrap();
    memory
        .add_message(ChatMessage::system("be brief"))
        .await
        .unwrap();
    for turn in 0..4 {
        memory
            .add_message(ChatMessage::user(format!("q{turn}")))
            .await
            .unwrap();
        memory
            .add_message(ChatMessage::assistant(format!("a{turn}")))
            .await
            .unwrap();
    }
    let history = memory.get_history().await.unwrap();
    assert_eq!(texts(&history), ["be brief", "q2", "a2", "q3", "a3"]);
}

#[tokio::test]
async fn capacity_evicts_oldest_and_orphaned_tool_results() {
    let store = Arc::new(InMemoryStore::new());
    let config = ConversationMemoryConfig::full().with_max_messages(3);
    let memory = ConversationMemory::new(store, "c", config).unwrap();
    memory.add_message(ChatMessage::user("u1")).await.unwrap();
    memory
        .add_message(ChatMessage::assistant_tool_calls(vec![ToolCall::new(
            "t1", "search", "{}",
        )]))
        .await
        .unwrap();
    memory
        .add_message(ChatMessage::tool("t1", "result"))
        .await
        .unwrap();
    memory
        .add_message(ChatMessage::assistant("answer"))
        .await
        .unwrap();
    // u1 and the call are evicted (capacity 3 → 1 over, then the call's
    // result would lead without its call, so it goes too).
    memory.add_message(ChatMessage::user("u2")).await.unwrap();
    let history = memory.get_history().await.unwrap();
    assert!(history.iter().all(|m| m.role != Role::Tool), "{history:?}");
    assert!(history.len() <= 3);
    assert_eq!(history.last().unwrap().text(), "u2");
}

#[tokio::test]
async fn compaction_shrinks_old_tool_results_in_the_store() {
    let store = Arc::new(InMemoryStore::new());
    let config =
        ConversationMemoryConfig::full().with_compaction(CompactConfig::new(1_000, 200, 2));
    let memory = ConversationMemory::new(store, "k", config).unwrap();
    memory
        .add_message(ChatMessage::user("read it"))
        .await
        .unwrap();
    memory
        .add_message(ChatMessage::assistant_tool_calls(vec![ToolCall::new(
            "c1",
            "read_file",
            "{}",
        )]))
        .await
        .unwrap();
    memory
        .add_message(ChatMessage::tool("c1", "x".repeat(20_000)))
        .await
        .unwrap();
    memory
        .add_message(ChatMessage::assistant("long file"))
        .await
        .unwrap();
    memory
        .add_message(ChatMessage::user("thanks"))
        .await
        .unwrap();
    let history = memory.get_history().await.unwrap();
    assert_eq!(history.len(), 5);
    assert!(
        history[2].text().contains("removed by microcompact"),
        "{}",
        history[2].text()
    );
    assert_eq!(history[2].tool_call_id.as_deref(), Some("c1"));
}

#[tokio::test]
async fn sessions_are_isolated_and_clear_only_touches_one() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    let a =
        ConversationMemory::new(Arc::clone(&store), "a", ConversationMemoryConfig::full()).unwrap();
    let ab = ConversationMemory::new(Arc::clone(&store), "ab", ConversationMemoryConfig::full())
        .unwrap();
    a.add_message(ChatMessage::user("in a")).await.unwrap();
    ab.add_message(ChatMessage::user("in ab")).await.unwrap();
    assert_eq!(texts(&a.get_history().await.unwrap()), ["in a"]);
    a.clear().await.unwrap();
    assert!(a.is_empty().await.unwrap());
    assert_eq!(texts(&ab.get_history().await.unwrap()), ["in ab"]);
    assert_eq!(a.add_message(ChatMessage::user("again")).await.unwrap(), 1);
}

#[tokio::test]
async fn bad_session_ids_and_messages_are_rejected() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    for bad in ["", "a:b", "nul\0", &"s".repeat(600)] {
        let err =
            ConversationMemory::new(Arc::clone(&store), bad, ConversationMemoryConfig::full())
                .unwrap_err();
        assert!(matches!(err, MemoryError::InvalidInput(_)));
    }
    let memory = ConversationMemory::new(
        Arc::clone(&store),
        "会话-1 🚀",
        ConversationMemoryConfig::full(),
    )
    .unwrap();
    memory
        .add_message(ChatMessage::user("你好 'DROP TABLE' \"x\" *"))
        .await
        .unwrap();
    assert_eq!(
        texts(&memory.get_history().await.unwrap()),
        ["你好 'DROP TABLE' \"x\" *"]
    );
    let hits = store
        .search("你好", &agcore_memory::SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
}

#[tokio::test]
async fn concurrent_adds_get_distinct_sequence_numbers() {
    let store = Arc::new(InMemoryStore::new());
    let memory =
        Arc::new(ConversationMemory::new(store, "p", ConversationMemoryConfig::full()).unwrap());
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        let memory = Arc::clone(&memory);
        tasks.spawn(async move { memory.add_message(ChatMessage::user(format!("m{i}"))).await });
    }
    let mut seqs = Vec::new();
    while let Some(r) = tasks.join_next().await {
        seqs.push(r.unwrap().unwrap());
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (0..20).collect::<Vec<u64>>());
}
