//! The search of [`SqliteStore`] on an in-memory database, through its
//! public API: any query text is searched as words (full-text syntax is
//! literal, never an error), and the pruned search equals the exhaustive
//! reference, which scores every listed row by BM25F with statistics counted
//! from the rows (`agcore_memory_testkit::reference`).

use std::collections::HashSet;
use std::sync::OnceLock;

use agcore_memory::retriever::ContextField;
use agcore_memory::retriever::{index_terms, unique_index_terms};
use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::reference::store_copy;

use crate::input::Input;
use crate::runtime::block_on;

/// Stored texts: mixed scripts, full-text syntax, quotes.
const DOCUMENTS: [&str; 12] = [
    "The user prefers green tea in the morning",
    "用户喜欢在早上喝绿茶",
    "记忆系统使用 SQLite FTS5 索引",
    "NEAR(rust cargo) \"quoted\" phrase AND OR NOT",
    "col:value ^start * prefix* -minus +plus",
    "日本語のテキストとカタカナ",
    "Running runners ran; painted paintings",
    "mixed 中文 and English 混合 text",
    "a \"double\"\"quote\" and 'single' quote",
    "emoji 🍵 tea and ＜fullwidth＞",
    "numbers 42 3.14 2026-01-01",
    "",
];

fn store() -> &'static SqliteStore {
    static STORE: OnceLock<SqliteStore> = OnceLock::new();
    STORE.get_or_init(|| {
        block_on(async {
            let store = SqliteStore::open_in_memory()
                .await
                .expect("an in-memory store");
            let items = DOCUMENTS
                .iter()
                .enumerate()
                .map(|(i, text)| MemoryItem::new(format!("doc{i:02}"), *text))
                .collect();
            store.save_many(items).await.expect("documents saved");
            store
        })
    })
}

/// The rows of [`store`] in memory, for the exhaustive reference.
fn listed() -> &'static InMemoryStore {
    static LISTED: OnceLock<InMemoryStore> = OnceLock::new();
    LISTED.get_or_init(|| {
        block_on(store_copy(store(), Some(ContextField::default()))).expect("the rows listed")
    })
}

/// The first byte picks the limit (1 to 16); the rest is the query.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let limit = usize::from(input.byte() % 16) + 1;
    let query = input.text();
    let mut options = SearchOptions::default();
    options.limit = limit;
    let store = store();
    let hits = block_on(store.search(&query, &options))
        .unwrap_or_else(|e| panic!("search {query:?} failed: {e}"));
    let reference = block_on(listed().exhaustive_search(&query, &options))
        .unwrap_or_else(|e| panic!("exhaustive search for {query:?} failed: {e}"));
    assert!(hits.len() <= limit);
    let ids = |h: &[agcore_memory::ScoredItem]| -> Vec<String> {
        h.iter().map(|s| s.item.id.clone()).collect()
    };
    assert_eq!(
        ids(&hits),
        ids(&reference),
        "pruned and exhaustive searches differ"
    );
    for (hit, exact) in hits.iter().zip(&reference) {
        let tolerance = 1e-9 * exact.score.abs().max(1.0);
        assert!(
            (hit.score - exact.score).abs() <= tolerance,
            "scores differ"
        );
    }
    let terms: HashSet<String> = unique_index_terms(&query).into_iter().collect();
    for hit in &hits {
        assert!(
            index_terms(&hit.item.content)
                .iter()
                .any(|t| terms.contains(t)),
            "{:?} shares no term with {query:?}",
            hit.item.id
        );
    }
}
