//! Memory attachments through the facade: a `simple` store whose
//! `memory_path` is a storage URL (opened by `agcore::attach::Backends`),
//! and a `file` store embedded by a `local` model folder (opened by
//! `agcore::attach::Embedders`; needs `AGCORE_TEST_MINILM_DIR`).
#![cfg(feature = "agent")]

use agcore::agent::AgentError;
use agcore::attach::{AttachConfig, ConfigFormat, MemoryManager, Stage, UpdateOutcome};
use agcore::types::ChatMessage;

async fn manager(yaml: &str, dir: &std::path::Path) -> Result<MemoryManager, AgentError> {
    let file = dir.join("agents.yaml");
    let config = AttachConfig::parse(yaml, ConfigFormat::Yaml, Some(&file))?;
    MemoryManager::from_config(
        &config,
        "assistant",
        &agcore::attach::registry(),
        &agcore::attach::context_for(&config),
    )
    .await
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_simple_store_in_sqlite_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("turns.db");
    let yaml = format!(
        "memory:\n  stores:\n    - name: turns\n      type: simple\n      config: {{ memory_path: \"sqlite://{}\" }}\n\
         agents:\n  - name: assistant\n    memories: [{{ name: turns, write: true }}]\n",
        db.display()
    );
    let first = manager(&yaml, dir.path()).await.unwrap();
    let written = first
        .update(
            &[ChatMessage::user("Which kettle boils fastest?")],
            &[ChatMessage::assistant("The 2 kW electric kettle.")],
        )
        .await
        .unwrap();
    assert!(
        matches!(written.as_slice(), [(name, UpdateOutcome::Written { .. })] if name == "turns"),
        "{written:?}"
    );
    drop(first);
    assert!(db.exists(), "the item went to the SQLite file");

    let second = manager(&yaml, dir.path()).await.unwrap();
    let block = second
        .retrieve(Stage::Gen, "electric kettle")
        .await
        .unwrap()
        .expect("the stored turn is found after reopening");
    assert!(
        block.text.contains("2 kW electric kettle"),
        "{}",
        block.text
    );
    // The same turn again is a duplicate, not a second item.
    let again = second
        .update(
            &[ChatMessage::user("Which kettle boils fastest?")],
            &[ChatMessage::assistant("The 2 kW electric kettle.")],
        )
        .await
        .unwrap();
    assert!(
        matches!(again.as_slice(), [(_, UpdateOutcome::Duplicate { .. })]),
        "{again:?}"
    );
}

#[tokio::test]
async fn an_unsupported_url_names_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "memory:\n  stores:\n    - { name: turns, type: simple, config: { memory_path: \"gopher://x\" } }\n\
                agents:\n  - name: assistant\n    memories: [{ name: turns }]\n";
    let file = dir.path().join("agents.yaml");
    let config = AttachConfig::parse(yaml, ConfigFormat::Yaml, Some(&file)).unwrap();
    let err = MemoryManager::from_config(
        &config,
        "assistant",
        &agcore::attach::registry(),
        &agcore::attach::context_for(&config),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("turns") && text.contains("gopher"), "{text}");
}

#[cfg(feature = "local-embeddings")]
#[tokio::test]
async fn a_file_store_embedded_by_a_local_model_finds_the_chunk() {
    let Some(model) = agcore_memory_testkit::service_url("AGCORE_TEST_MINILM_DIR") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("tea.md"),
        "# Tea\nGreen tea is brewed with water at 80 degrees for two minutes.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("bikes.md"),
        "# Bicycles\nInflate road bike tyres to about seven bar before a ride.\n",
    )
    .unwrap();
    let yaml = format!(
        "memory:\n  stores:\n    - name: docs\n      type: file\n      config:\n        index_path: index.json\n\
         \x20       file_sources: [{{ path: docs }}]\n\
         \x20       embedding: {{ provider: local, params: {{ model_path: \"{model}\" }} }}\n\
         agents:\n  - name: assistant\n    memories: [{{ name: docs, top_k: 1 }}]\n"
    );
    let manager = manager(&yaml, dir.path()).await.unwrap();
    let block = manager
        .retrieve(Stage::Gen, "How hot should the water be for a cup of tea?")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(block.hits.len(), 1);
    assert!(block.text.contains("80 degrees"), "{}", block.text);
    assert!(
        dir.path().join("index.json").exists(),
        "the index lives beside the configuration file"
    );
}
