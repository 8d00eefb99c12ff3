use super::*;
use crate::{at, turn};
use agcore_memory::MemoryItem;
use agcore_memory::long_term::{MemoryType, NewMemory, WeightRules, apply};

fn ids(hits: &[ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

/// Turns of two sessions and items of none, saved out of time order, one
/// replaced and one deleted.
async fn conversation(store: &InMemoryStore) {
    let items = vec![
        turn("b2", "s2", 6, "we walked along the lake"),
        turn("a1", "s1", 1, "did you run the marathon in boston"),
        turn("a2", "s1", 2, "yes my legs still hurt"),
        turn("a3", "s1", 3, "the violin lesson was cancelled"),
        turn("b1", "s2", 5, "where did you go camping"),
        MemoryItem::new("n1", "marathon training plans").with_created_at(at(4)),
        MemoryItem::new("n2", "a lake in the mountains").with_created_at(at(7)),
    ];
    store.save_many(items).await.unwrap();
    store
        .save(turn("a2", "s1", 2, "yes my legs hurt after the race"))
        .await
        .unwrap();
    store.delete("n2").await.unwrap();
}

#[tokio::test]
async fn the_store_copy_ranks_as_the_store_it_lists() {
    let field = ContextField::default().with_window(2);
    let store = InMemoryStore::new().with_context_field(Some(field.clone()));
    conversation(&store).await;
    for query in ["marathon legs", "lake camping", "violin race", "boston"] {
        for limit in [1, 2, 3, 10] {
            let options = SearchOptions::top_k(limit);
            let got = exhaustive_search(&store, Some(field.clone()), query, &options)
                .await
                .unwrap();
            let want = store.exhaustive_search(query, &options).await.unwrap();
            assert_eq!(got, want, "{query} top {limit}");
        }
    }
    // "a2" and "a3" hold no "marathon": only their context field finds them.
    let options = SearchOptions::top_k(10);
    let with = exhaustive_search(&store, Some(field), "marathon", &options)
        .await
        .unwrap();
    assert_eq!(ids(&with), ["a1", "n1", "a2", "a3"]);
    let without = exhaustive_search(&store, None, "marathon", &options)
        .await
        .unwrap();
    assert_eq!(ids(&without), ["a1", "n1"]);
}

/// Entries of two scopes imported alternately (so a scope's ids are not
/// consecutive): types, archived entries and ties (the same words in
/// another order).
async fn backend() -> (InMemoryLongTerm, MemoryScope) {
    let scope = MemoryScope::new("agent", "u").unwrap();
    let other = MemoryScope::new("agent", "v").unwrap();
    let rules = WeightRules::default();
    let texts = [
        "green tea every morning",
        "tea morning every green",
        "jasmine tea with friends",
        "coffee after lunch",
        "every morning green tea",
        "rust compiler errors",
        "tea",
    ];
    let mut entries = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        for (s, of) in [&scope, &other].into_iter().enumerate() {
            let ty = if i % 3 == 0 {
                MemoryType::Project
            } else {
                MemoryType::User
            };
            let text = if s == 0 {
                (*text).to_owned()
            } else {
                format!("{text} again")
            };
            let new = NewMemory::new(ty, "", text);
            let mut entry = apply::new_entry(of, new, &rules, at(i as i64));
            entry.archived = i % 4 == 1;
            entries.push(entry);
        }
    }
    let backend = InMemoryLongTerm::new();
    backend.import_entries(entries).await.unwrap();
    (backend, scope)
}

#[tokio::test]
async fn a_scope_copy_ranks_as_the_backend_it_lists() {
    let (backend, scope) = backend().await;
    let copy = ScopeCopy::load(&backend, &scope).await.unwrap();
    let requests = [
        SearchRequest::top_k(10),
        SearchRequest::top_k(2),
        SearchRequest::top_k(10).archived(ArchivedFilter::Include),
        SearchRequest::top_k(10).archived(ArchivedFilter::Only),
        SearchRequest::top_k(10).of_type(MemoryType::Project),
    ];
    for query in ["green tea", "morning", "coffee tea", "rust tea"] {
        for request in &requests {
            let got = copy.search(query, request).await.unwrap();
            let want = backend.search(&scope, query, request).await.unwrap();
            assert!(!want.is_empty(), "{query} {request:?}");
            assert_eq!(got, want, "{query} {request:?}");
            let once = exhaustive_scope_search(&backend, &scope, query, request)
                .await
                .unwrap();
            assert_eq!(once, want, "{query} {request:?}");
        }
    }
}
