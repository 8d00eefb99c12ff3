//! A memory store type of your own (seed 003's `register_memory_store`):
//! `pinned`, notes fixed in the configuration and recalled when they share
//! words with the query, registered with `MemoryStoreRegistry::register`
//! and used from a TOML configuration string like the built-in types. Its
//! keys are checked (a misspelt key names the nearest one), its `config`
//! schema joins the configuration's JSON Schema, and an agent turn on the
//! scripted `MockProvider` gets its notes.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example custom_memory_store`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use agcore::agent::{AgentBuilder, AgentConfig, AgentError, AgentSession, SimpleAgent};
use agcore::attach::{
    AttachConfig, AttachedItem, AttachedStore, ConfigFormat, MemoryManager, MemoryStoreRegistry,
    Recalled, Stage, StoreContext, StoreSpec, UpdateOutcome, jaccard, parse_store_config,
};
use agcore::llm::MockProvider;
use agcore::types::ChatMessage;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

/// `config` of a `pinned` store.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PinnedConfig {
    /// The notes, one memory each.
    notes: Vec<String>,
    /// Least share of words in common with the query (Jaccard, 0–1) for a
    /// note to be recalled. Default 0.05.
    #[serde(default = "default_min_overlap")]
    min_overlap: f64,
}

fn default_min_overlap() -> f64 {
    0.05
}

/// The store: its name and notes; read-only.
#[derive(Debug)]
struct PinnedStore {
    name: String,
    config: PinnedConfig,
}

#[async_trait]
impl AttachedStore for PinnedStore {
    fn name(&self) -> &str {
        &self.name
    }

    fn store_type(&self) -> &str {
        "pinned"
    }

    fn writable(&self) -> bool {
        false
    }

    async fn load(&self) -> Result<(), AgentError> {
        Ok(())
    }

    async fn retrieve(&self, query: &str, top_k: usize) -> Result<Vec<Recalled>, AgentError> {
        let mut found: Vec<Recalled> = self
            .config
            .notes
            .iter()
            .enumerate()
            .map(|(n, note)| Recalled {
                item: AttachedItem::from_memory_item(agcore::memory::MemoryItem::new(
                    format!("pin:{n}"),
                    note.clone(),
                )),
                score: Some(jaccard(query, note)),
            })
            .filter(|r| r.score.unwrap_or(0.0) >= self.config.min_overlap)
            .collect();
        found.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
        found.truncate(top_k);
        Ok(found)
    }

    async fn update(
        &self,
        _: &[ChatMessage],
        _: &[ChatMessage],
    ) -> Result<UpdateOutcome, AgentError> {
        Err(AgentError::ReadOnly {
            store: self.name.clone(),
            reason: "pinned notes live in the configuration".into(),
        })
    }

    async fn save(&self) -> Result<(), AgentError> {
        Ok(())
    }
}

/// The built-in types and `pinned`.
fn registry() -> MemoryStoreRegistry {
    let mut registry = agcore::attach::registry();
    registry.register(
        "pinned",
        parse_store_config::<PinnedConfig>,
        |spec: StoreSpec, config: PinnedConfig, _ctx: StoreContext| async move {
            Ok(Arc::new(PinnedStore {
                name: spec.name,
                config,
            }) as Arc<dyn AttachedStore>)
        },
        "Notes fixed in the configuration, recalled by shared words; read-only",
    );
    registry
}

const AGENTS_TOML: &str = r#"
[[memory.stores]]
name = "team_rules"
type = "pinned"
[memory.stores.config]
notes = [
  "Deploys happen on Tuesdays after the 10:00 stand-up.",
  "The staging database is reset every night at 02:00 UTC.",
  "发布窗口：每周二上午。",
]

[[agents]]
name = "ops"
[[agents.memories]]
name = "team_rules"
top_k = 1
"#;

const QUESTION: &str = "When do deploys happen?";

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let registry = registry();
    println!("registered types: {}", registry.types().join(", "));
    let schema = registry.schema();
    let pinned_in_schema = schema
        .pointer("/$defs/StoreDeclaration/oneOf")
        .and_then(|v| v.as_array())
        .is_some_and(|v| {
            v.iter()
                .any(|t| t.pointer("/properties/type/const") == Some(&"pinned".into()))
        });
    println!("`pinned` in the configuration schema: {pinned_in_schema}");

    // A misspelt key of the custom type is caught like a built-in one's.
    let typo = AGENTS_TOML.replace("notes = [", "note = [");
    let bad = AttachConfig::parse(&typo, ConfigFormat::Toml, None)?;
    match MemoryManager::from_config(&bad, "ops", &registry, &agcore::attach::context()).await {
        Ok(_) => return Err("the misspelt key was accepted".into()),
        Err(err) => println!("misspelt key: {err}"),
    }

    let config = AttachConfig::parse(AGENTS_TOML, ConfigFormat::Toml, None)?;
    let manager = Arc::new(
        MemoryManager::from_config(&config, "ops", &registry, &agcore::attach::context()).await?,
    );
    let Some(block) = manager.retrieve(Stage::Gen, QUESTION).await? else {
        return Err("no pinned note was recalled".into());
    };
    for (store, recalled) in &block.hits {
        println!(
            "{store} recalled for {QUESTION:?}: {} (score {:.2})",
            recalled.item.content_summary,
            recalled.score.unwrap_or(0.0)
        );
    }

    // The same manager attached to an agent: the note is in its system prompt.
    let provider = Arc::new(MockProvider::new().push_text("On Tuesdays, after the stand-up."));
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .config(AgentConfig::new("mock-model"))
        .memory_attachments(manager)
        .build()?;
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("ops")), bundle);
    let answer = session.submit_turn(QUESTION).await?;
    let requests = provider.requests();
    let system = requests
        .first()
        .and_then(|r| r.messages.first())
        .map(|m| m.text())
        .unwrap_or_default();
    println!("answer: {}", answer.text());
    if !system.contains("Deploys happen on Tuesdays") {
        return Err("the pinned note is missing from the system prompt".into());
    }
    println!("the system prompt holds the pinned note");
    Ok(())
}
