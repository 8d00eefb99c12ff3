//! The `file` store with an on-disk item store (what the `agcore` facade
//! gives it: SQLite beside the index file): a restart over unchanged files
//! writes nothing and finds the same chunks; a lost index file or database
//! is rebuilt without leaving stale chunks.
#![cfg(test)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_agent::attach::stores::file::{FileStore, index_db_path, parse_file_config};
use agcore_agent::attach::{AttachedStore, BackendOpener, ConfigLocation, StoreContext, StoreSpec};
use agcore_memory::{
    MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use agcore_memory_sqlite::SqliteStore;
use async_trait::async_trait;
use serde_json::json;

/// A `SqliteStore` that counts the items saved and deleted.
struct Counting(SqliteStore, Arc<AtomicUsize>);

#[async_trait]
impl MemoryStore for Counting {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        self.1.fetch_add(1, Ordering::SeqCst);
        self.0.save(item).await
    }
    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        self.1.fetch_add(items.len(), Ordering::SeqCst);
        self.0.save_many(items).await
    }
    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        self.0.get(id).await
    }
    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        self.1.fetch_add(1, Ordering::SeqCst);
        self.0.delete(id).await
    }
    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        self.0.list(filter).await
    }
    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        self.0.count(filter).await
    }
    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        self.0.search(query, options).await
    }
}

/// Opens counting `SqliteStore`s, as the facade's opener opens SQLite.
struct Sqlite(Arc<AtomicUsize>);

#[async_trait]
impl BackendOpener for Sqlite {
    async fn open(&self, url: &str) -> Result<Arc<dyn MemoryStore>, MemoryError> {
        Err(MemoryError::InvalidInput(format!("no URLs here: {url}")))
    }

    async fn open_index(&self, path: &Path) -> Result<Option<Arc<dyn MemoryStore>>, MemoryError> {
        Ok(Some(Arc::new(Counting(
            SqliteStore::open(path).await?,
            self.0.clone(),
        ))))
    }
}

fn write_corpus(dir: &Path, files: usize) {
    for i in 0..files {
        let body = format!(
            "# Topic {i}\nNote {i} is about subject{i}.\n\n## Details\n{}\n\n## 细节\n主题{i}的中文说明。\n",
            format!("Paragraph about subject{i} and its parts. ").repeat(30)
        );
        std::fs::write(dir.join(format!("note{i}.md")), body).unwrap();
    }
}

async fn open(docs: &Path, index: &Path, writes: &Arc<AtomicUsize>) -> FileStore {
    let config = json!({
        "file_sources": [{"path": docs, "file_types": [".md"]}],
        "index_path": index,
    });
    let ctx = StoreContext {
        backends: Some(Arc::new(Sqlite(writes.clone()))),
        ..StoreContext::default()
    };
    let parsed = parse_file_config(&config, &ConfigLocation::default(), ctx.vars.as_ref()).unwrap();
    let spec = StoreSpec {
        name: "docs".into(),
        location: ConfigLocation::default(),
    };
    let store = FileStore::open(spec, parsed, ctx).await.unwrap();
    assert!(store.is_persistent());
    store
}

async fn held(index: &Path) -> usize {
    let db = SqliteStore::open(index_db_path(index)).await.unwrap();
    db.count(&MemoryFilter::default()).await.unwrap()
}

async fn top_content(store: &FileStore, query: &str) -> String {
    let hits = store.retrieve(query, 3).await.unwrap();
    hits.first()
        .map(|h| h.item.content_summary.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_restart_over_unchanged_files_reuses_the_on_disk_index() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_corpus(docs.path(), 8);
    let index = out.path().join("docs.json");
    let writes = Arc::new(AtomicUsize::new(0));
    let store = open(docs.path(), &index, &writes).await;
    store.load().await.unwrap();
    let first = store.last_stats().await;
    assert_eq!((first.files_indexed, first.files_unchanged), (8, 0));
    let english = top_content(&store, "subject5").await;
    let chinese = top_content(&store, "主题3").await;
    assert!(english.contains("subject5"), "{english}");
    assert!(chinese.contains("主题3"), "{chinese}");
    drop(store);

    // The index file keeps metadata only; the database holds every chunk.
    let file = std::fs::read_to_string(&index).unwrap();
    assert!(
        !file.contains("Paragraph about"),
        "texts stay in the database"
    );
    assert_eq!(held(&index).await, first.chunks_total);

    let before = writes.load(Ordering::SeqCst);
    let store = open(docs.path(), &index, &writes).await;
    store.load().await.unwrap();
    assert_eq!(
        writes.load(Ordering::SeqCst),
        before,
        "nothing is written again"
    );
    let again = store.last_stats().await;
    assert_eq!(
        (
            again.files_unchanged,
            again.files_indexed,
            again.chunks_indexed
        ),
        (8, 0, 0)
    );
    assert_eq!(again.chunks_total, first.chunks_total);
    assert_eq!(top_content(&store, "subject5").await, english);
    assert_eq!(top_content(&store, "主题3").await, chinese);

    // One changed and one deleted file after the restart: only their chunks move.
    std::fs::write(
        docs.path().join("note2.md"),
        "# Changed\nsubject2 now says zebra.\n",
    )
    .unwrap();
    std::fs::remove_file(docs.path().join("note6.md")).unwrap();
    drop(store);
    let store = open(docs.path(), &index, &writes).await;
    store.load().await.unwrap();
    let changed = store.last_stats().await;
    assert_eq!(
        (
            changed.files_indexed,
            changed.files_removed,
            changed.chunks_indexed
        ),
        (1, 1, 1)
    );
    assert!(top_content(&store, "zebra").await.contains("zebra"));
    assert!(!top_content(&store, "subject6").await.contains("subject6"));
    assert_eq!(held(&index).await, changed.chunks_total);
}

#[tokio::test]
async fn a_lost_index_file_or_database_is_rebuilt_without_stale_chunks() {
    let (docs, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_corpus(docs.path(), 5);
    let index = out.path().join("docs.json");
    let writes = Arc::new(AtomicUsize::new(0));
    let store = open(docs.path(), &index, &writes).await;
    store.load().await.unwrap();
    let total = store.last_stats().await.chunks_total;
    drop(store);

    // The index file is lost while a file disappears: the database still
    // holds that file's chunks until the rebuild drops them.
    std::fs::remove_file(&index).unwrap();
    std::fs::remove_file(docs.path().join("note4.md")).unwrap();
    let store = open(docs.path(), &index, &writes).await;
    store.load().await.unwrap();
    let rebuilt = store.last_stats().await;
    assert_eq!(rebuilt.files_indexed, 4);
    assert!(rebuilt.chunks_total < total);
    assert_eq!(held(&index).await, rebuilt.chunks_total);
    assert!(!top_content(&store, "subject4").await.contains("subject4"));
    drop(store);

    // The database is lost: the index file no longer matches it.
    for suffix in ["", "-wal", "-shm"] {
        let path = format!("{}{suffix}", index_db_path(&index).display());
        let _ = std::fs::remove_file(path);
    }
    let store = open(docs.path(), &index, &writes).await;
    store.load().await.unwrap();
    assert_eq!(store.last_stats().await.files_indexed, 4);
    assert!(top_content(&store, "subject1").await.contains("subject1"));
    assert_eq!(held(&index).await, rebuilt.chunks_total);
}
