//! Stages in a task: a `PlanningAgent` reads `plan` attachments when it
//! drafts its plan, `gen` ones for each step and `critique` ones for its
//! review; `pre` ones every turn. Only `gen` turns are written.
#![cfg(test)]

use std::path::Path;
use std::sync::Arc;

use agcore_agent::attach::{
    AttachConfig, ConfigFormat, MemoryManager, MemoryStoreRegistry, Stage, StoreContext,
};
use agcore_agent::{
    AgentBuilder, AgentSession, DEFAULT_REVIEW_PROMPT, PlanningAgent, SimpleAgent, TaskAgent,
};
use agcore_llm::MockProvider;
use agcore_types::ChatMessage;

const YAML: &str = "
memory:
  stores:
    - {name: planning, type: blackboard, config: {memory_path: planning.json}}
    - {name: answers, type: blackboard}
    - {name: reviews, type: blackboard, config: {memory_path: reviews.json}}
    - {name: always, type: blackboard, config: {memory_path: always.json}}
agents:
  - name: seeder
    memories:
      - {name: planning, write: true}
      - {name: reviews, write: true}
      - {name: always, write: true}
  - name: assistant
    memories:
      - {name: planning, retrieve_stage: [plan]}
      - {name: answers, retrieve_stage: [gen], write: true}
      - {name: reviews, retrieve_stage: [critique]}
      - {name: always, retrieve_stage: [pre]}
";

async fn manager(config: &AttachConfig, agent: &str, dir: &Path) -> MemoryManager {
    let ctx = StoreContext {
        base_dir: Some(dir.to_path_buf()),
        ..StoreContext::default()
    };
    MemoryManager::from_config(config, agent, &MemoryStoreRegistry::with_builtins(), &ctx)
        .await
        .unwrap()
}

#[tokio::test]
async fn each_turn_of_a_task_reads_the_attachments_of_its_stage() {
    let dir = tempfile::tempdir().unwrap();
    let config = AttachConfig::parse(YAML, ConfigFormat::Yaml, Some(Path::new("a.yaml"))).unwrap();
    // A seeding agent writes one note into the three file-backed
    // blackboards that the assistant's stages read.
    let seeder = manager(&config, "seeder", dir.path()).await;
    seeder
        .update(
            &[ChatMessage::user("note")],
            &[ChatMessage::assistant("a note")],
        )
        .await
        .unwrap();
    seeder.save().await.unwrap();
    let manager = Arc::new(manager(&config, "assistant", dir.path()).await);

    let provider = Arc::new(
        MockProvider::new()
            .push_text(r#"{"steps": [{"description": "boil water"}]}"#)
            .push_text("STEP-ANSWER: water boiled")
            .push_text("REVIEW: fine"),
    );
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .memory_attachments(Arc::clone(&manager))
        .build()
        .unwrap();
    let session = AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle);
    let mut agent = PlanningAgent::new(session).with_review(DEFAULT_REVIEW_PROMPT);
    let plan = agent.run("make tea").await.unwrap();
    assert_eq!(plan.completed_count(), 1);
    assert_eq!(plan.review.as_deref(), Some("REVIEW: fine"));

    let systems: Vec<String> = provider
        .requests()
        .iter()
        .map(|r| r.messages[0].text())
        .collect();
    let stores_in = |system: &str| -> Vec<&'static str> {
        ["[planning]", "[answers]", "[reviews]", "[always]"]
            .into_iter()
            .filter(|s| system.contains(s))
            .collect()
    };
    assert_eq!(
        stores_in(&systems[0]),
        ["[planning]", "[always]"],
        "plan turn"
    );
    assert_eq!(
        stores_in(&systems[1]),
        ["[always]"],
        "step: answers is still empty"
    );
    assert_eq!(
        stores_in(&systems[2]),
        ["[reviews]", "[always]"],
        "review turn: the step's answer is not read at critique"
    );

    // Only the step (a gen turn) was written to `answers`.
    let answers = manager
        .retrieve(Stage::Gen, "water")
        .await
        .unwrap()
        .unwrap();
    let texts: Vec<&str> = answers
        .hits
        .iter()
        .map(|(_, r)| r.item.content_summary.as_str())
        .collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains("STEP-ANSWER"), "{texts:?}");
}
