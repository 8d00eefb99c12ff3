use super::*;

#[tokio::test]
async fn writes_survive_reopening_and_deletes_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.json");
    let store = JsonFileStore::open(&path).await.unwrap();
    store
        .save_many(vec![
            MemoryItem::new("a", "用户喜欢绿茶"),
            MemoryItem::new("b", "The user hikes on Sundays"),
        ])
        .await
        .unwrap();
    store.delete("b").await.unwrap();
    let saved = store.get("a").await.unwrap().unwrap();
    drop(store);

    let store = JsonFileStore::open(&path).await.unwrap();
    assert_eq!(
        store.get("a").await.unwrap(),
        Some(saved),
        "exact, nanoseconds included"
    );
    assert_eq!(store.get("b").await.unwrap(), None);
    let hits = store
        .search("绿茶", &SearchOptions::top_k(3))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
}

#[tokio::test]
async fn invalid_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.json");
    let store = JsonFileStore::open(&path).await.unwrap();
    store.save(MemoryItem::new("a", "kept")).await.unwrap();
    let before = std::fs::read(&path).unwrap();
    let bad = store
        .save_many(vec![
            MemoryItem::new("b", "fine"),
            MemoryItem::new("", "no id"),
        ])
        .await;
    assert!(matches!(bad, Err(MemoryError::InvalidInput(_))));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(store.count(&MemoryFilter::default()).await.unwrap(), 1);
}

#[tokio::test]
async fn a_failed_write_leaves_memory_matching_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("gone");
    std::fs::create_dir(&folder).unwrap();
    let path = folder.join("memory.json");
    let store = JsonFileStore::open(&path).await.unwrap();
    store.save(MemoryItem::new("a", "first")).await.unwrap();
    std::fs::remove_dir_all(&folder).unwrap();
    let err = store
        .save(MemoryItem::new("b", "second"))
        .await
        .unwrap_err();
    assert!(matches!(err, MemoryError::Storage(_)), "{err}");
    // The file is gone, so the reloaded store is empty, like the disk.
    assert_eq!(store.get("b").await.unwrap(), None);
    assert_eq!(store.count(&MemoryFilter::default()).await.unwrap(), 0);
}

#[tokio::test]
async fn a_foreign_file_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.json");
    std::fs::write(&path, b"[1, 2, 3]").unwrap();
    let err = JsonFileStore::open(&path).await.unwrap_err();
    assert!(
        err.to_string().contains("not an agcore JSON memory file"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"[1, 2, 3]");
}
