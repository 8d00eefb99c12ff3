//! The `simple` and `blackboard` stores and a user-registered type, opened
//! from configuration through the registry: persistence across restarts,
//! dedupe, top-k, dense vectors kept across restarts, trimming.
#![cfg(test)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_agent::AgentError;
use agcore_agent::attach::{
    AttachConfig, AttachedItem, AttachedStore, ConfigFormat, EmbedderFactory, EmbeddingSettings,
    MemoryStoreRegistry, Recalled, StoreContext, StoreSpec, UpdateOutcome, parse_store_config,
};
use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingBatch, EmbeddingModel, HashingEmbedder, InputKind};
use agcore_types::ChatMessage;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

async fn open(yaml: &str, ctx: &StoreContext) -> Result<Arc<dyn AttachedStore>, AgentError> {
    let config = AttachConfig::parse(yaml, ConfigFormat::Yaml, None)?;
    let registry = MemoryStoreRegistry::with_builtins();
    let store = registry.open(&config.memory.stores[0], ctx).await?;
    store.load().await?;
    Ok(store)
}

fn turn(question: &str, answer: &str) -> (Vec<ChatMessage>, Vec<ChatMessage>) {
    (
        vec![ChatMessage::user(question)],
        vec![ChatMessage::assistant(answer)],
    )
}

fn simple_yaml(path: &Path, embedding: bool) -> String {
    let embedding = if embedding {
        ", embedding: {provider: hashing}"
    } else {
        ""
    };
    format!(
        "memory:\n  stores:\n    - name: notes\n      type: simple\n      config: {{memory_path: '{}'{embedding}}}\n",
        path.display()
    )
}

#[tokio::test]
async fn simple_persists_across_restart_and_dedupes_by_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/notes.json");
    let ctx = StoreContext::default();
    let store = open(&simple_yaml(&path, false), &ctx).await.unwrap();
    let (q, a) = turn("What tea do I like?", "You like green tea from 杭州.");
    let first = store.update(&q, &a).await.unwrap();
    let UpdateOutcome::Written { id } = first.clone() else {
        panic!("{first:?}")
    };
    assert_eq!(
        store.update(&q, &a).await.unwrap(),
        UpdateOutcome::Duplicate { id: id.clone() }
    );
    let (q2, a2) = turn("Where do I live?", "You live in Lisbon.");
    assert!(matches!(
        store.update(&q2, &a2).await.unwrap(),
        UpdateOutcome::Written { .. }
    ));
    assert_eq!(
        store.update(&[], &[]).await.unwrap(),
        UpdateOutcome::Skipped
    );
    store.save().await.unwrap();
    drop(store);

    let reopened = open(&simple_yaml(&path, false), &ctx).await.unwrap();
    let hits = reopened.retrieve("green tea", 3).await.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    let Recalled { item, score } = &hits[0];
    assert_eq!(item.id, id);
    assert_eq!(
        item.content_summary,
        "User: What tea do I like?\nAssistant: You like green tea from 杭州."
    );
    assert_eq!(item.input_snapshot, q);
    assert_eq!(item.output_snapshot, a);
    assert_eq!(item.metadata["input_preview"], "What tea do I like?");
    assert!(score.is_some_and(|s| s > 0.0 && s <= 1.0));
    let chinese = reopened.retrieve("杭州", 3).await.unwrap();
    assert_eq!(chinese.len(), 1);
    let both = reopened.retrieve("you like live", 1).await.unwrap();
    assert_eq!(both.len(), 1, "top_k caps the results");
}

/// Counts the documents a hashing model embeds.
struct Counting {
    inner: HashingEmbedder,
    documents: Arc<AtomicUsize>,
}

#[async_trait]
impl EmbeddingModel for Counting {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        if kind == InputKind::Document {
            self.documents.fetch_add(texts.len(), Ordering::SeqCst);
        }
        self.inner.embed(texts, kind).await
    }
}

struct CountingFactory(Arc<AtomicUsize>);

#[async_trait]
impl EmbedderFactory for CountingFactory {
    async fn open(&self, _: &EmbeddingSettings) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
        Ok(Arc::new(Counting {
            inner: HashingEmbedder::new(256),
            documents: Arc::clone(&self.0),
        }))
    }
}

#[tokio::test]
async fn simple_dense_search_keeps_vectors_across_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dense.json");
    let documents = Arc::new(AtomicUsize::new(0));
    let ctx = StoreContext {
        embedders: Arc::new(CountingFactory(Arc::clone(&documents))),
        ..StoreContext::default()
    };
    let store = open(&simple_yaml(&path, true), &ctx).await.unwrap();
    for (q, a) in [
        ("Which editor do I use?", "You use Helix with a dark theme."),
        ("What is my cat called?", "Your cat is called Miso."),
        ("Favourite drink?", "Green tea, hot, no sugar."),
    ] {
        let (q, a) = turn(q, a);
        store.update(&q, &a).await.unwrap();
    }
    assert_eq!(documents.load(Ordering::SeqCst), 3);
    drop(store);

    let reopened = open(&simple_yaml(&path, true), &ctx).await.unwrap();
    assert_eq!(
        documents.load(Ordering::SeqCst),
        3,
        "vectors are read back, not re-embedded"
    );
    let hits = reopened.retrieve("cat called Miso", 2).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits[0].item.content_summary.contains("Miso"));
    let scores: Vec<f64> = hits.iter().map(|h| h.score.unwrap()).collect();
    assert!(
        scores[0] > scores[1] && scores.iter().all(|s| (-1.0..=1.0).contains(s)),
        "{scores:?}"
    );
}

#[tokio::test]
async fn blackboard_is_newest_first_trimmed_by_count_and_persisted() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "memory:\n  stores:\n    - {name: board, type: blackboard, config: {memory_path: auto, max_items: 3}}\n";
    let ctx = StoreContext {
        session_dir: Some(dir.path().to_path_buf()),
        ..StoreContext::default()
    };
    let store = open(yaml, &ctx).await.unwrap();
    for i in 0..5 {
        let (q, a) = turn(&format!("step {i}"), &format!("done {i}"));
        store.update(&q, &a).await.unwrap();
    }
    drop(store);
    assert!(dir.path().join("board.json").exists());
    let reopened = open(yaml, &ctx).await.unwrap();
    let all = reopened.retrieve("ignored", 10).await.unwrap();
    let texts: Vec<&str> = all
        .iter()
        .map(|h| h.item.content_summary.as_str())
        .collect();
    assert_eq!(
        texts,
        vec![
            "User: step 4\nAssistant: done 4",
            "User: step 3\nAssistant: done 3",
            "User: step 2\nAssistant: done 2"
        ]
    );
    assert!(all.iter().all(|h| h.score.is_none()));
    assert_eq!(reopened.retrieve("", 1).await.unwrap().len(), 1);
}

#[tokio::test]
async fn blackboard_drops_entries_past_their_age() {
    let yaml =
        "memory:\n  stores:\n    - {name: board, type: blackboard, config: {max_age_secs: 1}}\n";
    let store = open(yaml, &StoreContext::default()).await.unwrap();
    let (q, a) = turn("old", "news");
    store.update(&q, &a).await.unwrap();
    assert_eq!(store.retrieve("", 5).await.unwrap().len(), 1);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert!(store.retrieve("", 5).await.unwrap().is_empty());
}

/// A user's own store type: a fixed list of notes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PinnedConfig {
    notes: Vec<String>,
}

#[derive(Debug)]
struct Pinned {
    name: String,
    notes: Vec<String>,
}

#[async_trait]
impl AttachedStore for Pinned {
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
    async fn retrieve(&self, _: &str, top_k: usize) -> Result<Vec<Recalled>, AgentError> {
        Ok(self
            .notes
            .iter()
            .take(top_k)
            .enumerate()
            .map(|(i, note)| Recalled {
                item: AttachedItem::from_turn(format!("pin:{i}"), note.clone(), &[], &[]),
                score: Some(1.0),
            })
            .collect())
    }
    async fn update(
        &self,
        _: &[ChatMessage],
        _: &[ChatMessage],
    ) -> Result<UpdateOutcome, AgentError> {
        Err(AgentError::ReadOnly {
            store: self.name.clone(),
            reason: "pinned notes".into(),
        })
    }
    async fn save(&self) -> Result<(), AgentError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_user_registered_type_opens_from_configuration() {
    let mut registry = MemoryStoreRegistry::with_builtins();
    registry.register(
        "pinned",
        parse_store_config::<PinnedConfig>,
        |spec: StoreSpec, config: PinnedConfig, _ctx| async move {
            Ok(Arc::new(Pinned {
                name: spec.name,
                notes: config.notes,
            }) as Arc<dyn AttachedStore>)
        },
        "Notes fixed in the configuration",
    );
    assert_eq!(
        registry.types(),
        vec!["blackboard", "file", "pinned", "simple"]
    );
    assert_eq!(
        registry.summary("pinned"),
        Some("Notes fixed in the configuration")
    );
    let yaml = "memory:\n  stores:\n    - {name: rules, type: pinned, config: {notes: [Always cite sources, 回答要简洁]}}\n";
    let config = AttachConfig::parse(yaml, ConfigFormat::Yaml, None).unwrap();
    let store = registry
        .open(&config.memory.stores[0], &StoreContext::default())
        .await
        .unwrap();
    let hits = store.retrieve("anything", 5).await.unwrap();
    assert_eq!(hits[1].item.content_summary, "回答要简洁");
    let bad = "memory:\n  stores:\n    - {name: rules, type: pinned, config: {note: [x]}}\n";
    let config = AttachConfig::parse(bad, ConfigFormat::Yaml, None).unwrap();
    let err = registry.validate(&config, &|_: &str| None).unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown key `note`; did you mean `notes`?"),
        "{err}"
    );
    let schema = registry.schema();
    assert!(
        schema
            .to_string()
            .contains("Notes fixed in the configuration")
    );
}

/// Opens `sqlite://` URLs with the SQLite driver crate, as the facade's
/// `agcore::memory::open` does.
struct Sqlite;

#[async_trait]
impl agcore_agent::attach::BackendOpener for Sqlite {
    async fn open(
        &self,
        url: &str,
    ) -> Result<Arc<dyn agcore_memory::MemoryStore>, agcore_memory::MemoryError> {
        Ok(agcore_memory_sqlite::open(url).await?.store())
    }
}

#[tokio::test]
async fn simple_lives_in_a_backend_named_by_url() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "memory:\n  stores:\n    - {{name: notes, type: simple, config: {{memory_path: 'sqlite://{}'}}}}\n",
        dir.path().join("memory.db").display()
    );
    let without = open(&yaml, &StoreContext::default()).await.unwrap_err();
    assert!(
        without
            .to_string()
            .contains("a backend URL needs a backend opener"),
        "{without}"
    );
    let ctx = StoreContext {
        backends: Some(Arc::new(Sqlite)),
        ..StoreContext::default()
    };
    let store = open(&yaml, &ctx).await.unwrap();
    let (q, a) = turn("我的猫叫什么?", "你的猫叫小米。");
    store.update(&q, &a).await.unwrap();
    drop(store);
    let reopened = open(&yaml, &ctx).await.unwrap();
    let hits = reopened.retrieve("猫叫小米", 1).await.unwrap();
    assert_eq!(hits[0].item.output_snapshot, a);
}
