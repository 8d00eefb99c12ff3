//! Opening storage from URLs and from the `[memory.long_term]` configuration.

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn open_from_configuration() {
    use agcore::memory::long_term::{MemorySettings, MemoryType, NewMemory};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/lt.db");
    let text = format!("[memory.long_term]\npath = {:?}\n", path.to_str().unwrap());
    let settings = MemorySettings::from_toml_str(&text).unwrap();
    let memory = agcore::memory::open_long_term(&settings.memory.long_term)
        .await
        .unwrap();
    let m = memory.scope("a", "u").unwrap();
    m.save(NewMemory::new(MemoryType::User, "", "persisted fact"))
        .await
        .unwrap();
    memory.close().await.unwrap();
    assert!(path.exists());
    let memory = agcore::memory::open_long_term(&settings.memory.long_term)
        .await
        .unwrap();
    assert_eq!(
        memory
            .scope("a", "u")
            .unwrap()
            .search("persisted", 5)
            .await
            .unwrap()
            .len(),
        1
    );
    let in_memory =
        MemorySettings::from_toml_str("[memory.long_term]\nbackend = \"memory\"").unwrap();
    assert!(
        agcore::memory::open_long_term(&in_memory.memory.long_term)
            .await
            .is_ok()
    );
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn sqlite_urls_and_bare_paths_open_one_database_for_every_part() {
    use agcore::memory::long_term::{MemoryType, NewMemory};
    use agcore::memory::{MemoryItem, SearchOptions};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/agent.db");
    for url in [
        format!("sqlite://{}", path.display()),
        path.display().to_string(),
    ] {
        let storage = agcore::memory::open(&url).await.unwrap();
        assert_eq!(storage.info().kind, "sqlite");
        assert!(storage.info().version.starts_with("SQLite 3."));
        let store = storage.store();
        store
            .save(MemoryItem::new("note:1", "deploys on Fridays"))
            .await
            .unwrap();
        let alice = storage.long_term().unwrap().scope("a", "alice").unwrap();
        alice
            .save(NewMemory::new(MemoryType::User, "", "likes green tea"))
            .await
            .unwrap();
        assert_eq!(
            store
                .search("fridays", &SearchOptions::top_k(2))
                .await
                .unwrap()
                .len(),
            1
        );
        assert_eq!(alice.search("tea", 2).await.unwrap().len(), 1);
    }
    let err = agcore::memory::open("sqlite://").await.unwrap_err();
    assert!(err.to_string().contains("names no SQLite file"), "{err}");
}
