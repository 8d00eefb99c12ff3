//! `MemoryManager`: stage lists, read/write flags, top-k and similarity
//! thresholds, and the one block it renders.
#![cfg(test)]

use std::path::Path;

use agcore_agent::attach::{
    AttachConfig, ConfigFormat, DATA_NOTICE, MemoryManager, MemoryStoreRegistry, Stage,
    StoreContext, UpdateOutcome,
};
use agcore_types::ChatMessage;

fn config(docs: &Path, index: &Path, extra: &str) -> String {
    format!(
        r#"
memory:
  attachment_header: "===== 相关记忆 ====="
  stores:
    - name: chat
      type: simple
    - name: board
      type: blackboard
    - name: docs
      type: file
      config:
        index_path: '{}'
        file_sources: [{{path: '{}', file_types: [.md]}}]
agents:
  - name: assistant
    memories:
      - {{name: chat, retrieve_stage: [gen], top_k: 2, write: true}}
      - {{name: board, retrieve_stage: [pre, critique], top_k: 1, write: true}}
      - {{name: docs, retrieve_stage: [gen], top_k: 1{extra}}}
  - name: reviewer
    memories:
      - {{name: chat, read: false, write: false}}
"#,
        index.display(),
        docs.display()
    )
}

async fn manager(yaml: &str, agent: &str) -> Result<MemoryManager, agcore_agent::AgentError> {
    let config = AttachConfig::parse(yaml, ConfigFormat::Yaml, Some(Path::new("agents.yaml")))?;
    MemoryManager::from_config(
        &config,
        agent,
        &MemoryStoreRegistry::with_builtins(),
        &StoreContext::default(),
    )
    .await
}

#[tokio::test]
async fn stages_flags_and_the_rendered_block() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(
        docs.path().join("tea.md"),
        "# Tea\nGreen tea is brewed at 80 degrees.\n",
    )
    .unwrap();
    let yaml = config(docs.path(), &out.path().join("docs.json"), "");
    let manager = manager(&yaml, "assistant").await.unwrap();
    manager.load().await.unwrap();
    assert!(
        manager
            .retrieve(Stage::Gen, "green tea")
            .await
            .unwrap()
            .is_some(),
        "the file store answers at gen"
    );

    let input = vec![ChatMessage::user("How hot should green tea be?")];
    let output = vec![ChatMessage::assistant("About 80 degrees.")];
    let written = manager.update(&input, &output).await.unwrap();
    let stores: Vec<&str> = written.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        stores,
        vec!["chat", "board"],
        "only write: true attachments are updated"
    );
    assert!(matches!(written[0].1, UpdateOutcome::Written { .. }));

    let block = manager
        .retrieve(Stage::Gen, "green tea degrees")
        .await
        .unwrap()
        .unwrap();
    let names: Vec<&str> = block.hits.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(names, vec!["chat", "docs"], "board is not read at gen");
    let chat_score = block.hits[0].1.score.unwrap();
    let docs_score = block.hits[1].1.score.unwrap();
    assert_eq!(
        block.text,
        format!(
            "===== 相关记忆 =====\n{DATA_NOTICE}\n\n[chat] (score {chat_score:.2})\n> User: How hot should green tea be?\n> Assistant: About 80 degrees.\n\n[docs] (source: tea.md &#x203A; Tea) (score {docs_score:.2})\n> # Tea\n> Green tea is brewed at 80 degrees."
        )
    );

    let pre = manager
        .retrieve(Stage::Pre, "anything")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pre.hits.len(), 1);
    assert_eq!(pre.hits[0].0, "board");
    assert!(
        manager
            .retrieve(Stage::Plan, "green tea")
            .await
            .unwrap()
            .is_none(),
        "nothing attached at plan"
    );

    let reviewer = self::manager(&yaml, "reviewer").await.unwrap();
    assert!(
        reviewer
            .retrieve(Stage::Gen, "green tea")
            .await
            .unwrap()
            .is_none(),
        "read: false"
    );
    assert!(
        reviewer.update(&input, &output).await.unwrap().is_empty(),
        "write: false"
    );
}

#[tokio::test]
async fn the_similarity_threshold_drops_weak_matches() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(
        docs.path().join("a.md"),
        "# A\ngreen tea brewing guide with many other unrelated words here\n",
    )
    .unwrap();
    let strict = config(
        docs.path(),
        &out.path().join("a.json"),
        ", similarity_threshold: 0.9",
    );
    let manager = manager(&strict, "assistant").await.unwrap();
    assert!(
        manager
            .retrieve(Stage::Gen, "green tea")
            .await
            .unwrap()
            .is_none()
    );
    let loose = config(
        docs.path(),
        &out.path().join("b.json"),
        ", similarity_threshold: 0.1",
    );
    let manager = self::manager(&loose, "assistant").await.unwrap();
    assert!(
        manager
            .retrieve(Stage::Gen, "green tea")
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn writing_a_read_only_store_and_unknown_agents_are_errors() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let yaml = config(docs.path(), &out.path().join("docs.json"), ", write: true");
    let err = manager(&yaml, "assistant").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "agents.yaml: `agents[0].memories[2].write`: memory store `docs` is of type `file`, which is read-only; set `write: false`"
    );
    let yaml = config(docs.path(), &out.path().join("docs.json"), "");
    let err = manager(&yaml, "planner").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "agents.yaml: `agents`: no agent named `planner`; agents: `assistant` or `reviewer`"
    );
}
