//! Databases written by the previous release (`tests/fixtures/`: a store at
//! store schema 2, long-term memory at schema 3, made by that release's code)
//! open with this one, migrate, and keep every row, search included.
#![cfg(test)]

use std::path::{Path, PathBuf};

use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType};
use agcore_memory::{MemoryFilter, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteDatabase;

/// A private copy of a fixture, so the committed file is never modified.
fn copy_of(name: &str, dir: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let to = dir.join(name);
    std::fs::copy(&from, &to).unwrap();
    to
}

#[tokio::test]
async fn a_previous_release_store_opens_with_every_item() {
    let dir = tempfile::tempdir().unwrap();
    let db = SqliteDatabase::open(copy_of("store-v2.sqlite", dir.path()))
        .await
        .unwrap();
    let versions = db.schema_versions().await.unwrap();
    assert!(versions.iter().any(|(c, _)| c == "store"), "{versions:?}");
    let store = db.store();
    assert_eq!(store.count(&MemoryFilter::all()).await.unwrap(), 31);
    let rewritten = store.get("note:06").await.unwrap().unwrap();
    assert_eq!(rewritten.content, "Note 6 rewritten: prefers coffee");
    let first = store.get("note:00").await.unwrap().unwrap();
    assert_eq!(first.metadata["kind"], "note");
    assert_eq!(first.created_at.timestamp(), 1_700_000_000);
    let hits = store
        .search("prefers coffee", &SearchOptions::top_k(3))
        .await
        .unwrap();
    assert_eq!(hits[0].item.id, "note:06", "{hits:?}");
    // New writes land beside the old rows and are searchable.
    store
        .save(agcore_memory::MemoryItem::new(
            "note:new",
            "espresso after lunch",
        ))
        .await
        .unwrap();
    assert_eq!(
        store
            .search("espresso", &SearchOptions::top_k(3))
            .await
            .unwrap()[0]
            .item
            .id,
        "note:new"
    );
    db.close().await.unwrap();

    // Reopening the migrated file is a no-op.
    let again = SqliteDatabase::open(dir.path().join("store-v2.sqlite"))
        .await
        .unwrap();
    assert_eq!(again.schema_versions().await.unwrap(), versions);
    assert_eq!(again.store().count(&MemoryFilter::all()).await.unwrap(), 32);
}

#[tokio::test]
async fn a_previous_release_long_term_database_keeps_weights_history_and_usage() {
    let dir = tempfile::tempdir().unwrap();
    let db = SqliteDatabase::open(copy_of("long-term-v3.sqlite", dir.path()))
        .await
        .unwrap();
    let memory = LongTermMemory::new(db.long_term());
    let alice = memory.scope("assistant", "alice").unwrap();
    let entries = alice.list(&ListRequest::all()).await.unwrap();
    assert_eq!(entries.len(), 5);
    let tea = entries.iter().find(|e| e.name == "drink").unwrap();
    assert_eq!(tea.content, "Alice prefers green tea");
    assert!((tea.weight - 1.5).abs() < 1e-9);
    assert_eq!(tea.use_count, 1);
    assert_eq!(tea.tags, vec!["drink".to_owned()]);
    assert_eq!(alice.usage_log(tea.id).await.unwrap().len(), 1);
    let style = entries.iter().find(|e| e.name == "style").unwrap();
    assert_eq!(style.memory_type, MemoryType::Feedback);
    assert!(!alice.history(style.id).await.unwrap().is_empty());

    let hits = alice.search("中文", 3).await.unwrap();
    assert_eq!(hits[0].entry.content, "用户喜欢用中文交流");
    let hits = alice.search("green tea", 3).await.unwrap();
    assert_eq!(hits[0].entry.id, tea.id);

    let bob = memory.scope("assistant", "bob").unwrap();
    let bobs = bob.list(&ListRequest::all()).await.unwrap();
    assert_eq!(bobs.len(), 1);
    assert!(
        bob.search("green tea", 3).await.unwrap().is_empty(),
        "scopes stay apart"
    );
    assert_eq!(memory.scopes().await.unwrap().len(), 2);
}
