//! Memory attachments from a YAML configuration (seed 003; see
//! `docs/memory-attachments.md`): a `simple` store of past turns, a `file`
//! store over a folder of Markdown notes and a `blackboard`, attached to one
//! agent. One turn on the scripted `MockProvider`: the block injected into
//! the system prompt before the turn, then the item written after it.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example memory_attachments`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use agcore::agent::{AgentBuilder, AgentConfig, AgentSession, SimpleAgent};
use agcore::attach::{AttachConfig, MemoryManager, Stage};
use agcore::llm::MockProvider;

/// The configuration; relative paths are resolved against its folder.
const AGENTS_YAML: &str = r#"
memory:
  attachment_header: "===== Relevant memories ====="
  stores:
    - name: turns
      type: simple
      config:
        memory_path: memory/turns.json
        embedding: { provider: hashing, params: { dimensions: 256 } }
    - name: notes
      type: file
      config:
        index_path: memory/notes-index.json
        file_sources: [{ path: notes, file_types: [".md"] }]
        chunking: { size: 200, overlap: 20 }
    - name: board
      type: blackboard
      config: { memory_path: memory/board.json, max_items: 100 }

agents:
  - name: assistant
    memories:
      - { name: turns, retrieve_stage: [gen], top_k: 2, write: true }
      - { name: notes, top_k: 2, similarity_threshold: 0.05 }
      - { name: board, retrieve_stage: [pre], top_k: 3, write: true }
"#;

/// The notes the `file` store indexes.
const NOTES: [(&str, &str); 3] = [
    (
        "tea.md",
        "# Tea\nNotes on buying and making tea.\n\n## Brewing\nGreen tea is brewed with water at 80 degrees for two minutes.\n\n## Storage\nKeep tea leaves in a dark, airtight tin.\n",
    ),
    (
        "bikes.md",
        "# Bicycles\n\nInflate road bike tyres to about seven bar before a ride.\n",
    ),
    (
        "kettle.md",
        "# Kettle\n\nThe office kettle boils 1.7 litres in four minutes; descale it monthly.\n",
    ),
];

/// The header line of the memory block (`memory.attachment_header`).
const HEADER: &str = "===== Relevant memories =====";

const QUESTION: &str = "How hot should the water be for green tea?";

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join("notes"))?;
    for (name, text) in NOTES {
        std::fs::write(dir.path().join("notes").join(name), text)?;
    }
    let file = dir.path().join("agents.yaml");
    std::fs::write(&file, AGENTS_YAML)?;

    // The configuration, its stores opened with the facade's registry and
    // context (embedders, storage URLs, paths relative to the file).
    let config = AttachConfig::load(&file).await?;
    let manager = Arc::new(
        MemoryManager::from_config(
            &config,
            "assistant",
            &agcore::attach::registry(),
            &agcore::attach::context_for(&config),
        )
        .await?,
    );
    manager.load().await?;
    let names: Vec<&str> = manager.attachments().map(|a| a.name.as_str()).collect();
    println!("attachments of `assistant`: {}", names.join(", "));

    let provider = Arc::new(MockProvider::new().push_text("About 80 degrees, for two minutes."));
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .base_prompt("Answer briefly.")
        .config(AgentConfig::new("mock-model"))
        .memory_attachments(Arc::clone(&manager))
        .build()?;
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle);
    let answer = session.submit_turn(QUESTION).await?;
    println!("\nuser: {QUESTION}\nassistant: {}", answer.text());

    // The block the model saw: the system prompt holds it inside <memory-context>.
    let requests = provider.requests();
    let system = requests
        .first()
        .and_then(|r| r.messages.first())
        .map(|m| m.text())
        .unwrap_or_default();
    let Some((_, rest)) = system.split_once(HEADER) else {
        return Err("the memory block is missing from the system prompt".into());
    };
    let body = rest.split("</memory-context>").next().unwrap_or(rest);
    let block = format!("{HEADER}{}", body.trim_end());
    println!("\ninjected before the turn (stages pre + gen):\n{block}");
    if !block.contains("80 degrees") {
        return Err("the tea note was not retrieved".into());
    }

    // What the turn wrote: the newest board entry, read back (`board` is
    // the attachment retrieved at `pre`; `notes` is retrieved at every stage).
    let written = manager.retrieve(Stage::Pre, QUESTION).await?;
    let board: Vec<_> = written
        .iter()
        .flat_map(|b| b.hits.iter())
        .filter(|(store, _)| store == "board")
        .collect();
    if board.is_empty() {
        return Err("nothing was written to the board".into());
    }
    for (store, recalled) in board {
        let first_line = recalled.item.content_summary.lines().next().unwrap_or("");
        println!("\nwritten to {store}: {first_line}");
        println!("  id: {}", recalled.item.id);
        println!("  metadata: {}", recalled.item.metadata);
        println!(
            "  snapshots: {} input message(s), {} output message(s)",
            recalled.item.input_snapshot.len(),
            recalled.item.output_snapshot.len()
        );
    }
    let turns = manager.retrieve(Stage::Gen, "green tea water").await?;
    let in_turns = turns
        .as_ref()
        .is_some_and(|b| b.hits.iter().any(|(store, _)| store == "turns"));
    println!("\nthe turn is also in `turns` (dense + keyword search): {in_turns}");
    Ok(())
}
