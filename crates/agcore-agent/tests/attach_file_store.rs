//! The `file` store: first index, restart from the persisted index, and
//! change detection — editing one file of many re-indexes only its chunks.
#![cfg(test)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_agent::AgentError;
use agcore_agent::attach::stores::file::{DEFAULT_MAX_FILE_BYTES, FileStore, parse_file_config};
use agcore_agent::attach::{
    AttachConfig, AttachedStore, ChunkingConfig, ConfigFormat, ConfigLocation, EmbedderFactory,
    EmbeddingSettings, MemoryStoreRegistry, StoreContext, StoreSpec, chunk_file,
};
use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingBatch, EmbeddingModel, HashingEmbedder, InputKind};
use async_trait::async_trait;
use serde_json::json;

fn write_corpus(dir: &Path, files: usize) {
    for i in 0..files {
        let body = format!(
            "# Topic {i}\nThis note {i} talks about subject{i} in depth.\n\n## Details\n{}\n",
            format!("Paragraph about subject{i} and its parts. ").repeat(30)
        );
        std::fs::write(dir.join(format!("note{i}.md")), body).unwrap();
    }
    std::fs::write(dir.join("skip.bin"), [0u8, 1, 2]).unwrap();
}

async fn open(docs: &Path, index: &Path, ctx: StoreContext, embedding: bool) -> FileStore {
    let mut config = json!({
        "file_sources": [{"path": docs, "file_types": [".md"]}],
        "index_path": index,
    });
    if embedding {
        config["embedding"] = json!({"provider": "hashing"});
    }
    let parsed = parse_file_config(&config, &ConfigLocation::default(), ctx.vars.as_ref()).unwrap();
    let spec = StoreSpec {
        name: "docs".into(),
        location: ConfigLocation::default(),
    };
    FileStore::open(spec, parsed, ctx).await.unwrap()
}

#[tokio::test]
async fn only_new_changed_and_deleted_files_are_reindexed() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_corpus(docs.path(), 12);
    let index = out.path().join("index/docs.json");
    let store = open(docs.path(), &index, StoreContext::default(), false).await;
    store.load().await.unwrap();
    let first = store.last_stats().await;
    assert_eq!(
        (
            first.files_scanned,
            first.files_indexed,
            first.files_unchanged
        ),
        (12, 12, 0)
    );
    assert!(first.chunks_indexed >= 24, "{first:?}");
    assert_eq!(first.chunks_total, first.chunks_indexed);
    assert!(index.exists());
    let hits = store.retrieve("subject7", 3).await.unwrap();
    assert!(
        hits[0].item.content_summary.contains("subject7"),
        "{hits:?}"
    );
    assert_eq!(
        hits[0].item.metadata["title"],
        "note7.md › Topic 7 › Details"
    );

    // A restart reads the persisted index: nothing is chunked again.
    drop(store);
    let store = open(docs.path(), &index, StoreContext::default(), false).await;
    store.load().await.unwrap();
    let reload = store.last_stats().await;
    assert_eq!(
        (
            reload.files_unchanged,
            reload.files_indexed,
            reload.chunks_indexed
        ),
        (12, 0, 0)
    );
    assert_eq!(reload.chunks_total, first.chunks_total);
    assert!(!store.retrieve("subject7", 1).await.unwrap().is_empty());

    // Edit one file of many: only its chunks are made again.
    let edited = "# Topic 3\nRewritten: the zebra migration schedule.\n";
    std::fs::write(docs.path().join("note3.md"), edited).unwrap();
    let expected = chunk_file("note3.md", edited, &ChunkingConfig::default()).len();
    store.load().await.unwrap();
    let change = store.last_stats().await;
    assert_eq!((change.files_indexed, change.files_unchanged), (1, 11));
    assert_eq!(change.chunks_indexed, expected);
    assert!(
        store
            .retrieve("subject3", 5)
            .await
            .unwrap()
            .iter()
            .all(|h| !h.item.content_summary.contains("subject3"))
    );
    assert!(
        store.retrieve("zebra migration", 1).await.unwrap()[0]
            .item
            .content_summary
            .contains("zebra")
    );

    // Delete one, add one.
    std::fs::remove_file(docs.path().join("note5.md")).unwrap();
    std::fs::write(docs.path().join("new.md"), "# Fresh\nA note on quokkas.\n").unwrap();
    store.load().await.unwrap();
    let churn = store.last_stats().await;
    assert_eq!(
        (
            churn.files_indexed,
            churn.files_removed,
            churn.files_unchanged
        ),
        (1, 1, 11)
    );
    assert!(churn.chunks_removed >= 2, "{churn:?}");
    assert!(
        store
            .retrieve("subject5", 5)
            .await
            .unwrap()
            .iter()
            .all(|h| !h.item.content_summary.contains("subject5"))
    );
    assert!(!store.retrieve("quokkas", 1).await.unwrap().is_empty());

    // Same bytes, new modification time: the hash keeps it.
    let same = std::fs::read(docs.path().join("note1.md")).unwrap();
    std::fs::remove_file(docs.path().join("note1.md")).unwrap();
    std::fs::write(docs.path().join("note1.md"), same).unwrap();
    store.load().await.unwrap();
    assert_eq!(store.last_stats().await.chunks_indexed, 0);

    let err = store.update(&[], &[]).await.unwrap_err();
    assert!(matches!(err, AgentError::ReadOnly { .. }) && !store.writable());
}

struct Counting(Arc<AtomicUsize>);

#[async_trait]
impl EmbedderFactory for Counting {
    async fn open(&self, _: &EmbeddingSettings) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
        Ok(Arc::new(CountingModel(
            HashingEmbedder::new(128),
            Arc::clone(&self.0),
        )))
    }
}

struct CountingModel(HashingEmbedder, Arc<AtomicUsize>);

#[async_trait]
impl EmbeddingModel for CountingModel {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        if kind == InputKind::Document {
            self.1.fetch_add(texts.len(), Ordering::SeqCst);
        }
        self.0.embed(texts, kind).await
    }
}

#[tokio::test]
async fn vectors_are_persisted_and_only_changed_chunks_embedded() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_corpus(docs.path(), 4);
    let index = out.path().join("docs.json");
    let embedded = Arc::new(AtomicUsize::new(0));
    let ctx = StoreContext {
        embedders: Arc::new(Counting(Arc::clone(&embedded))),
        ..StoreContext::default()
    };
    let store = open(docs.path(), &index, ctx.clone(), true).await;
    store.load().await.unwrap();
    let total = store.last_stats().await.chunks_total;
    assert_eq!(embedded.load(Ordering::SeqCst), total);
    drop(store);

    let store = open(docs.path(), &index, ctx, true).await;
    store.load().await.unwrap();
    assert_eq!(
        embedded.load(Ordering::SeqCst),
        total,
        "a restart embeds nothing"
    );
    std::fs::write(
        docs.path().join("note2.md"),
        "# Topic 2\nNow about lighthouses.\n",
    )
    .unwrap();
    store.load().await.unwrap();
    assert_eq!(embedded.load(Ordering::SeqCst), total + 1);
    let hits = store.retrieve("lighthouses", 2).await.unwrap();
    assert!(hits[0].item.content_summary.contains("lighthouses"));
    assert!(
        hits[0]
            .score
            .is_some_and(|s| s > hits[1].score.unwrap_or(-1.0))
    );
}

#[test]
fn file_store_configuration_errors() {
    let registry = MemoryStoreRegistry::with_builtins();
    let check = |yaml: &str| {
        let config =
            AttachConfig::parse(yaml, ConfigFormat::Yaml, Some(Path::new("agents.yaml"))).unwrap();
        registry
            .validate(&config, &|_: &str| None)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        check(
            "memory:\n  stores:\n    - {name: docs, type: file, config: {index_path: i.json, file_sources: []}}\n"
        ),
        "agents.yaml: `memory.stores[0].config.file_sources`: a file store needs at least one source, e.g. `file_sources: [{path: docs/, file_types: [.md]}]`"
    );
    assert_eq!(
        check(
            "memory:\n  stores:\n    - {name: docs, type: file, config: {file_sources: [{path: docs}]}}\n"
        ),
        "agents.yaml: `memory.stores[0].config`: missing field `index_path`"
    );
    let encoding = check(
        "memory:\n  stores:\n    - {name: docs, type: file, config: {index_path: i.json, file_sources: [{path: d, encoding: klingon}]}}\n",
    );
    assert!(encoding.starts_with("agents.yaml: `memory.stores[0].config.file_sources[0].encoding`: unknown encoding `klingon`"), "{encoding}");
    let chunking = check(
        "memory:\n  stores:\n    - {name: docs, type: file, config: {index_path: i.json, file_sources: [{path: d}], chunking: {size: 50, overlap: 50}}}\n",
    );
    assert!(
        chunking.contains("`memory.stores[0].config.chunking`: needs size ≥ 1 and overlap < size"),
        "{chunking}"
    );
}

#[tokio::test]
async fn gbk_files_are_decoded() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (bytes, _, _) = encoding_rs::GBK.encode("# 说明\n绿茶产自杭州。\n");
    std::fs::write(docs.path().join("zh.md"), &bytes).unwrap();
    let config = json!({
        "file_sources": [{"path": docs.path(), "encoding": "gbk"}],
        "index_path": out.path().join("i.json"),
    });
    let ctx = StoreContext::default();
    let parsed = parse_file_config(&config, &ConfigLocation::default(), ctx.vars.as_ref()).unwrap();
    let spec = StoreSpec {
        name: "zh".into(),
        location: ConfigLocation::default(),
    };
    let store = FileStore::open(spec, parsed, ctx).await.unwrap();
    let hits = store.retrieve("杭州", 1).await.unwrap();
    assert!(
        hits[0].item.content_summary.contains("绿茶产自杭州"),
        "{hits:?}"
    );
}

#[tokio::test]
async fn files_over_max_file_bytes_are_skipped_unread() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_corpus(docs.path(), 3);
    let config = json!({
        "file_sources": [{"path": docs.path(), "file_types": [".md"]}],
        "index_path": out.path().join("docs.json"),
        "max_file_bytes": 2048,
    });
    let ctx = StoreContext::default();
    let parsed = parse_file_config(&config, &ConfigLocation::default(), ctx.vars.as_ref()).unwrap();
    assert_eq!(parsed.max_file_bytes, 2048);
    let spec = StoreSpec {
        name: "docs".into(),
        location: ConfigLocation::default(),
    };
    let store = FileStore::open(spec, parsed, ctx).await.unwrap();
    store.load().await.unwrap();
    let small = store.last_stats().await;
    // Each note is about 1.4 KB; a 3 MB one is skipped, never read.
    assert_eq!(
        (
            small.files_scanned,
            small.files_indexed,
            small.files_skipped
        ),
        (3, 3, 0)
    );
    std::fs::write(
        docs.path().join("huge.md"),
        "# Huge\n".to_owned() + &"word ".repeat(600_000),
    )
    .unwrap();
    // A note that grows past the limit is dropped from the index.
    let grown = format!("# Topic 0\n{}", "grown ".repeat(1_000));
    std::fs::write(docs.path().join("note0.md"), grown).unwrap();
    store.load().await.unwrap();
    let after = store.last_stats().await;
    assert_eq!(
        (
            after.files_scanned,
            after.files_skipped,
            after.files_removed,
            after.files_unchanged
        ),
        (4, 2, 1, 2)
    );
    assert!(store.retrieve("word", 3).await.unwrap().is_empty());
    assert_eq!(DEFAULT_MAX_FILE_BYTES, 16 * 1024 * 1024);
}
