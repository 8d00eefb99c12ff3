//! End to end: an agent on the scripted mock provider with one `simple` and
//! one `file` attachment. The exact block injected before the turn, and the
//! item written after it, seen again by the next turn.
#![cfg(test)]

use std::path::Path;
use std::sync::Arc;

use agcore_agent::attach::{
    AttachConfig, ConfigFormat, DATA_NOTICE, MemoryManager, MemoryStoreRegistry, Stage,
    StoreContext,
};
use agcore_agent::{AgentBuilder, AgentSession, SimpleAgent};
use agcore_llm::MockProvider;
use agcore_types::{ChatMessage, Role};

fn memory_context(system: &str) -> &str {
    let open = system.find("<memory-context>\n").unwrap() + "<memory-context>\n".len();
    let close = system.find("\n</memory-context>").unwrap();
    &system[open..close]
}

#[tokio::test]
async fn the_block_is_injected_and_the_turn_is_written() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(
        docs.path().join("tea.md"),
        "# Tea\nGreen tea is brewed at 80 degrees.\n",
    )
    .unwrap();
    let yaml = format!(
        "memory:\n  stores:\n    - {{name: chat, type: simple, config: {{memory_path: '{}'}}}}\n    - name: docs\n      type: file\n      config: {{index_path: '{}', file_sources: [{{path: '{}'}}]}}\nagents:\n  - name: assistant\n    memories:\n      - {{name: chat, retrieve_stage: [gen], write: true}}\n      - {{name: docs, retrieve_stage: [gen], top_k: 1}}\n",
        out.path().join("chat.json").display(),
        out.path().join("docs.json").display(),
        docs.path().display()
    );
    let config =
        AttachConfig::parse(&yaml, ConfigFormat::Yaml, Some(Path::new("agents.yaml"))).unwrap();
    let manager = Arc::new(
        MemoryManager::from_config(
            &config,
            "assistant",
            &MemoryStoreRegistry::with_builtins(),
            &StoreContext::default(),
        )
        .await
        .unwrap(),
    );
    let provider = Arc::new(
        MockProvider::new()
            .push_text("About 80 degrees.")
            .push_text("Yes, 80."),
    );
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .memory_attachments(Arc::clone(&manager))
        .build()
        .unwrap();
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle);

    session
        .submit_turn("How hot should green tea be?")
        .await
        .unwrap();
    let requests = provider.requests();
    let messages = &requests[0].messages;
    assert_eq!(
        messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::System, Role::User]
    );
    let system = messages[0].text();
    let score = manager
        .retrieve(Stage::Gen, "How hot should green tea be?")
        .await
        .unwrap()
        .unwrap()
        .hits[1]
        .1
        .score
        .unwrap();
    assert_eq!(
        memory_context(&system),
        format!(
            "===== Relevant memories =====\n{DATA_NOTICE}\n\n[docs] (source: tea.md &#x203A; Tea) (score {score:.2})\n> # Tea\n> Green tea is brewed at 80 degrees."
        ),
        "before the first turn only the file store has memories"
    );

    // The turn was written to `chat` (write: true) with its snapshots.
    let found = manager
        .retrieve(Stage::Gen, "green tea")
        .await
        .unwrap()
        .unwrap();
    let (store, hit) = &found.hits[0];
    assert_eq!(store, "chat");
    assert_eq!(
        hit.item.content_summary,
        "User: How hot should green tea be?\nAssistant: About 80 degrees."
    );
    assert_eq!(
        hit.item.input_snapshot,
        vec![ChatMessage::user("How hot should green tea be?")]
    );
    assert_eq!(hit.item.output_snapshot.len(), 1);
    assert_eq!(hit.item.output_snapshot[0].text(), "About 80 degrees.");

    // The next turn sees it, in the same block, before the file chunk.
    session
        .submit_turn("Is green tea still 80 degrees?")
        .await
        .unwrap();
    let second = provider.requests()[1].messages[0].text();
    let block = memory_context(&second);
    assert_eq!(
        block.matches("===== Relevant memories =====").count(),
        1,
        "{block}"
    );
    let chat_at = block.find("[chat] (score ").unwrap();
    assert!(
        block[chat_at..].contains(
            "\n> User: How hot should green tea be?\n> Assistant: About 80 degrees.\n\n[docs]"
        ),
        "{block}"
    );
}
