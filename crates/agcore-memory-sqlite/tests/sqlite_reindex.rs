//! Re-indexing with the stemming analyzer: a database whose index was built
//! with plain keywords (the recorded analyzer set back to `keywords-v1`, the
//! `terms` columns rewritten in the old form by raw SQL) is re-tokenised on
//! open, once, also when several processes open it at once.
#![cfg(test)]

use agcore_memory::long_term::{
    LongTermBackend, LongTermMemory, MemoryScope, MemoryType, NewMemory, SearchRequest,
};
use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::{SqliteLongTerm, SqliteStore};
use agcore_memory_testkit::reference::{ScopeCopy, store_copy};
use agcore_search::{ANALYZER_ID, KEYWORDS_ANALYZER_ID, extract_keywords, index_terms};
use rusqlite::Connection;

const ITEMS: &[(&str, &str)] = &[
    ("pet", "I adopted a puppy last spring"),
    ("run", "She runs every morning"),
    ("tea", "用户喜欢喝绿茶"),
];

/// Rewrites every `terms` column in the old (unstemmed) form and records
/// the old analyzer for both components.
fn make_old(path: &std::path::Path) {
    let conn = Connection::open(path).unwrap();
    let items: Vec<(i64, String)> = conn
        .prepare("SELECT pk, content FROM memory_items")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (pk, content) in items {
        conn.execute(
            "UPDATE memory_items SET terms = ?2 WHERE pk = ?1",
            rusqlite::params![pk, extract_keywords(&content).join(" ")],
        )
        .unwrap();
    }
    // Long-term terms: the scope token, then the keywords.
    let entries: Vec<(i64, String, String)> = conn
        .prepare("SELECT id, terms, name || ' ' || content || ' ' || description FROM memory")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (id, terms, text) in entries {
        let token = terms.split(' ').next().unwrap().to_owned();
        let old = format!("{token} {}", extract_keywords(&text).join(" "));
        conn.execute(
            "UPDATE memory SET terms = ?2 WHERE id = ?1",
            rusqlite::params![id, old],
        )
        .unwrap();
    }
    conn.execute(
        "UPDATE agcore_analyzer SET analyzer = ?1",
        [KEYWORDS_ANALYZER_ID],
    )
    .unwrap();
}

fn recorded(path: &std::path::Path) -> Vec<(String, String)> {
    Connection::open(path)
        .unwrap()
        .prepare("SELECT component, analyzer FROM agcore_analyzer ORDER BY component")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn store_terms(path: &std::path::Path, id: &str) -> String {
    Connection::open(path)
        .unwrap()
        .query_row("SELECT terms FROM memory_items WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
}

async fn write_both(path: &std::path::Path) {
    let store = SqliteStore::open(path).await.unwrap();
    for (id, text) in ITEMS {
        store.save(MemoryItem::new(*id, *text)).await.unwrap();
    }
    drop(store);
    let memory = LongTermMemory::new(SqliteLongTerm::open(path).await.unwrap());
    let m = memory.scope("agent", "u1").unwrap();
    for (name, text) in ITEMS {
        m.save(NewMemory::new(MemoryType::User, *name, *text))
            .await
            .unwrap();
    }
    memory.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_built_with_keywords_is_re_tokenised_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    write_both(&path).await;
    let now = vec![
        ("long_term".to_owned(), ANALYZER_ID.to_owned()),
        ("store".to_owned(), ANALYZER_ID.to_owned()),
    ];
    assert_eq!(recorded(&path), now);
    make_old(&path);
    assert_eq!(
        store_terms(&path, "pet"),
        extract_keywords(ITEMS[0].1).join(" ")
    );
    assert_ne!(extract_keywords(ITEMS[0].1), index_terms(ITEMS[0].1));

    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(recorded(&path), now);
    assert_eq!(store_terms(&path, "pet"), index_terms(ITEMS[0].1).join(" "));
    // Chinese text is re-indexed too: its bigrams and (since the analyzer
    // indexes them) its characters.
    assert_eq!(store_terms(&path, "tea"), index_terms(ITEMS[2].1).join(" "));
    assert!(store.integrity_check().await.unwrap().is_empty());
    let listed = store_copy(&store, Some(ContextField::default()))
        .await
        .unwrap();
    for (query, want) in [
        ("adopting puppies", "pet"),
        ("running", "run"),
        ("绿茶", "tea"),
    ] {
        let hits = store.search(query, &SearchOptions::top_k(5)).await.unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.item.id.as_str()).collect();
        assert_eq!(ids, [want], "{query}");
        let all = listed
            .exhaustive_search(query, &SearchOptions::top_k(5))
            .await
            .unwrap();
        assert_eq!(hits, all, "{query}");
    }
    drop(store);

    let backend = SqliteLongTerm::open(&path).await.unwrap();
    let scope = MemoryScope::new("agent", "u1").unwrap();
    let listed = ScopeCopy::load(&backend, &scope).await.unwrap();
    for (query, want) in [
        ("adopting puppies", "pet"),
        ("running", "run"),
        ("绿茶", "tea"),
    ] {
        let request = SearchRequest::top_k(5);
        let hits = backend.search(&scope, query, &request).await.unwrap();
        let names: Vec<&str> = hits.iter().map(|h| h.entry.name.as_str()).collect();
        assert_eq!(names, [want], "{query}");
        let all = listed.search(query, &request).await.unwrap();
        assert_eq!(hits, all, "{query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_openers_re_index_once_and_agree() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    write_both(&path).await;
    make_old(&path);
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            tokio::spawn(async move { SqliteStore::open(&path).await })
        })
        .collect();
    let mut stores = Vec::new();
    for open in opens {
        stores.push(open.await.unwrap().unwrap());
    }
    for store in &stores {
        let hits = store
            .search("adopting puppies", &SearchOptions::top_k(5))
            .await
            .unwrap();
        assert_eq!(hits.len(), 1);
        assert!(store.integrity_check().await.unwrap().is_empty());
    }
    assert_eq!(store_terms(&path, "pet"), index_terms(ITEMS[0].1).join(" "));
}
