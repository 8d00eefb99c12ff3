//! KnowledgeStore: CRUD errors, index consistency, backlinks, log, search, export/import.
#![cfg(test)]

use std::sync::Arc;

use agcore_memory::{
    InMemoryStore, KnowledgePage, KnowledgeStore, LogAction, MemoryError, MemoryStore,
};

fn page(id: &str, title: &str, body: &str) -> KnowledgePage {
    KnowledgePage::new(id, title, format!("About {title}"), body)
}

#[tokio::test]
async fn crud_errors_and_index_consistency() {
    let wiki = KnowledgeStore::new(Arc::new(InMemoryStore::new()));
    wiki.add_page(page("rust", "Rust", "A systems language"))
        .await
        .unwrap();
    let err = wiki
        .add_page(page("rust", "Rust again", "dup"))
        .await
        .unwrap_err();
    assert!(matches!(err, MemoryError::AlreadyExists(_)), "{err:?}");
    let err = wiki.update_page(page("go", "Go", "x")).await.unwrap_err();
    assert!(matches!(err, MemoryError::NotFound(_)), "{err:?}");
    let err = wiki.delete_page("go").await.unwrap_err();
    assert!(matches!(err, MemoryError::NotFound(_)), "{err:?}");
    assert!(matches!(
        wiki.add_page(page("a/b", "x", "y")).await,
        Err(MemoryError::InvalidInput(_))
    ));

    let created = wiki.get_page("rust").await.unwrap().unwrap().created_at;
    let mut updated = page("rust", "Rust lang", "Memory safety without GC");
    updated.tags = vec!["lang".into()];
    wiki.update_page(updated).await.unwrap();
    let got = wiki.get_page("rust").await.unwrap().unwrap();
    assert_eq!(got.title, "Rust lang");
    assert_eq!(got.created_at, created);
    assert!(got.updated_at >= created);

    wiki.add_page(page("cargo", "Cargo", "The Rust build tool"))
        .await
        .unwrap();
    let index = wiki.get_index().await.unwrap();
    assert_eq!(
        index.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["cargo", "rust"]
    );
    assert_eq!(index[1].title, "Rust lang");
    assert_eq!(index[1].tags, ["lang"]);

    wiki.delete_page("cargo").await.unwrap();
    assert!(wiki.get_page("cargo").await.unwrap().is_none());
    let index = wiki.get_index().await.unwrap();
    assert_eq!(index.len(), 1);
    assert!(wiki.search("build tool").await.unwrap().is_empty());

    let log = wiki.log().await.unwrap();
    let actions: Vec<_> = log.iter().map(|e| (e.action, e.page_id.as_str())).collect();
    assert_eq!(
        actions,
        [
            (LogAction::Create, "rust"),
            (LogAction::Update, "rust"),
            (LogAction::Create, "cargo"),
            (LogAction::Delete, "cargo"),
        ]
    );
    assert!(log.windows(2).all(|w| w[0].seq < w[1].seq));
}

#[tokio::test]
async fn open_rebuilds_index_backlinks_and_log_position() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    {
        let wiki = KnowledgeStore::open(Arc::clone(&store)).await.unwrap();
        wiki.add_page(page("bm25", "BM25", "Okapi ranking"))
            .await
            .unwrap();
        wiki.add_page(page("search", "Search", "Uses BM25").with_references(["bm25", "missing"]))
            .await
            .unwrap();
    }
    let wiki = KnowledgeStore::open(Arc::clone(&store)).await.unwrap();
    assert_eq!(wiki.get_index().await.unwrap().len(), 2);
    assert_eq!(wiki.backlinks("bm25").unwrap(), ["search"]);
    assert_eq!(
        wiki.broken_references().unwrap(),
        [("search".to_owned(), "missing".to_owned())]
    );
    wiki.add_page(page("idf", "IDF", "Inverse document frequency"))
        .await
        .unwrap();
    let seqs: Vec<u64> = wiki.log().await.unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2], "log numbering continues after reopening");
}

#[tokio::test]
async fn search_ranks_title_matches_and_chinese() {
    let wiki = KnowledgeStore::new(Arc::new(InMemoryStore::new()));
    wiki.add_page(page(
        "bm25",
        "BM25 ranking",
        "Probabilistic relevance framework",
    ))
    .await
    .unwrap();
    wiki.add_page(page("cooking", "Cooking", "Tomato soup recipe"))
        .await
        .unwrap();
    wiki.add_page(KnowledgePage::new(
        "memory-zh",
        "记忆系统",
        "对话记忆与知识库",
        "关键词检索,不用向量",
    ))
    .await
    .unwrap();
    let hits = wiki.search_scored("ranking relevance", 5).await.unwrap();
    assert_eq!(hits[0].page.id, "bm25");
    assert!(hits.iter().all(|h| h.page.id != "cooking"));
    assert_eq!(wiki.search("知识库").await.unwrap()[0].id, "memory-zh");
    assert!(wiki.search("").await.unwrap().is_empty());
}

#[tokio::test]
async fn export_then_import_round_trips_the_wiki() {
    let dir = tempfile::tempdir().unwrap();
    let wiki = KnowledgeStore::new(Arc::new(InMemoryStore::new()));
    wiki.add_page(
        page("rust", "Rust", "# Rust\n\n---\nBody with *markdown*.\n").with_tags(["lang", "系统"]),
    )
    .await
    .unwrap();
    wiki.add_page(page("cargo", "Cargo: \"build\"", "Build tool").with_references(["rust"]))
        .await
        .unwrap();
    assert_eq!(wiki.export_dir(dir.path()).await.unwrap(), 2);
    let index_md = std::fs::read_to_string(dir.path().join("index.md")).unwrap();
    assert!(index_md.contains("[Rust](pages/rust.md)"), "{index_md}");
    let log_md = std::fs::read_to_string(dir.path().join("log.md")).unwrap();
    assert_eq!(log_md.matches("] create | ").count(), 2, "{log_md}");

    let copy = KnowledgeStore::new(Arc::new(InMemoryStore::new()));
    assert_eq!(copy.import_dir(dir.path()).await.unwrap(), 2);
    assert_eq!(
        copy.all_pages().await.unwrap(),
        wiki.all_pages().await.unwrap()
    );
    assert_eq!(
        copy.get_index().await.unwrap(),
        wiki.get_index().await.unwrap()
    );
    assert_eq!(copy.backlinks("rust").unwrap(), ["cargo"]);
    let actions: Vec<LogAction> = copy.log().await.unwrap().iter().map(|e| e.action).collect();
    assert_eq!(
        actions,
        [
            LogAction::Create,
            LogAction::Create,
            LogAction::Import,
            LogAction::Import
        ]
    );
}

#[tokio::test]
async fn import_rejects_a_broken_page_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pages")).unwrap();
    std::fs::write(dir.path().join("pages/bad.md"), "no front matter here").unwrap();
    let wiki = KnowledgeStore::new(Arc::new(InMemoryStore::new()));
    let err = wiki.import_dir(dir.path()).await.unwrap_err();
    assert!(matches!(err, MemoryError::Serialization(_)), "{err:?}");
    assert!(wiki.all_pages().await.unwrap().is_empty());
    assert!(wiki.log().await.unwrap().is_empty());
    let missing = wiki.import_dir(dir.path().join("nope")).await.unwrap_err();
    assert!(matches!(missing, MemoryError::Storage(_)), "{missing:?}");
}

#[tokio::test]
async fn concurrent_adds_of_one_id_yield_one_page() {
    let wiki = Arc::new(KnowledgeStore::new(Arc::new(InMemoryStore::new())));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..8 {
        let wiki = Arc::clone(&wiki);
        tasks.spawn(async move { wiki.add_page(page("same", &format!("T{i}"), "x")).await });
    }
    let mut ok = 0;
    while let Some(r) = tasks.join_next().await {
        match r.unwrap() {
            Ok(()) => ok += 1,
            Err(MemoryError::AlreadyExists(_)) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(wiki.get_index().await.unwrap().len(), 1);
}

#[tokio::test]
async fn new_over_existing_data_loads_before_the_first_write() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    KnowledgeStore::open(Arc::clone(&store))
        .await
        .unwrap()
        .add_page(page("old", "Old", "existing page"))
        .await
        .unwrap();
    let wiki = KnowledgeStore::new(Arc::clone(&store));
    wiki.add_page(page("new", "New", "fresh page").with_references(["old"]))
        .await
        .unwrap();
    let ids: Vec<String> = wiki
        .get_index()
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["new", "old"]);
    let seqs: Vec<u64> = wiki.log().await.unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1], "the existing log entry is not overwritten");
    assert_eq!(wiki.backlinks("old").unwrap(), ["new"]);
}
