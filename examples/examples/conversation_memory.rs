//! Conversation memory: multi-turn history, a sliding window, capacity
//! eviction, tool-result compaction, and the messages as stored items.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example conversation_memory`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use agcore_llm::compact::CompactConfig;
use agcore_memory::{
    ConversationMemory, ConversationMemoryConfig, InMemoryStore, MemoryFilter, MemoryStore,
    SearchOptions,
};
use agcore_types::{ChatMessage, ToolCall};

fn show(label: &str, history: &[ChatMessage]) {
    println!("{label} ({} messages):", history.len());
    for m in history {
        let text = if m.tool_calls.is_empty() {
            m.text()
        } else {
            let names: Vec<&str> = m
                .tool_calls
                .iter()
                .map(|c| c.function.name.as_str())
                .collect();
            format!("[calls {}]", names.join(", "))
        };
        let shown: String = text.chars().take(70).collect();
        println!("  {:<9} {shown}", m.role.as_str());
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());

    // 1. Sliding window: keep the last 5 user turns (and the system prompt).
    let window = ConversationMemory::new(
        Arc::clone(&store),
        "session-1",
        ConversationMemoryConfig::sliding_window(5),
    )?;
    window
        .add_message(ChatMessage::system("你是一个简洁的助手。"))
        .await?;
    for i in 0..10 {
        window
            .add_message(ChatMessage::user(format!("消息 {i}: 第 {i} 个问题")))
            .await?;
        window
            .add_message(ChatMessage::assistant(format!("回答 {i}")))
            .await?;
    }
    let history = window.get_history().await?;
    show("sliding window, max_turns = 5", &history);
    assert_eq!(history.len(), 11);
    assert!(
        history
            .get(1)
            .is_some_and(|m| m.text().starts_with("消息 5"))
    );

    // 2. Full strategy with a capacity of 4 messages: the oldest are evicted.
    let capped = ConversationMemory::new(
        Arc::clone(&store),
        "session-2",
        ConversationMemoryConfig::full().with_max_messages(4),
    )?;
    for i in 0..6 {
        capped
            .add_message(ChatMessage::user(format!("note {i}")))
            .await?;
    }
    show(
        "\nfull strategy, max_messages = 4",
        &capped.get_history().await?,
    );

    // 3. Compaction: an old, large tool result is replaced by a marker once
    //    the history passes the token threshold (window 1000, 200 reserved).
    let compacting = ConversationMemory::new(
        Arc::clone(&store),
        "session-3",
        ConversationMemoryConfig::full().with_compaction(CompactConfig::new(1_000, 200, 2)),
    )?;
    compacting
        .add_message(ChatMessage::user("Read the build log"))
        .await?;
    compacting
        .add_message(ChatMessage::assistant_tool_calls(vec![ToolCall::new(
            "call-1",
            "read_file",
            r#"{"path":"build.log"}"#,
        )]))
        .await?;
    compacting
        .add_message(ChatMessage::tool(
            "call-1",
            "warning: unused variable\n".repeat(400),
        ))
        .await?;
    compacting
        .add_message(ChatMessage::assistant("The log has 400 warnings."))
        .await?;
    compacting.add_message(ChatMessage::user("Thanks!")).await?;
    show("\nafter compaction", &compacting.get_history().await?);

    // 4. The messages are ordinary items of the store: listed by prefix and searchable.
    let stored = store
        .list(&MemoryFilter::with_prefix(window.prefix()))
        .await?;
    let first = stored.first().map_or("-", |i| i.id.as_str());
    println!(
        "\nstore holds {} items for session-1; first id: {first}",
        stored.len()
    );
    let hits = store
        .search(
            "第 7 个问题",
            &SearchOptions::top_k(3).with_prefix("conv:session-1:"),
        )
        .await?;
    println!("search \"第 7 个问题\" in session-1:");
    for hit in &hits {
        println!("  {:.3}  {}  {}", hit.score, hit.item.id, hit.item.content);
    }
    println!(
        "total items in the store: {}",
        store.count(&MemoryFilter::all()).await?
    );
    Ok(())
}
