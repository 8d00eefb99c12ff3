//! Search through inflections: the store analyzer
//! ([`index_terms`](agcore_memory::retriever::index_terms)) stems English words on
//! both sides, so a query finds other forms of its words; Chinese text is
//! matched exactly as before (character bigrams, no stemming).

use std::sync::Arc;

use super::{CheckResult, at, ensure, hit_ids};
use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};

/// For each `(query, want)`, `want` is the first hit and `absent` ids are not hits.
async fn expect(store: &dyn MemoryStore, cases: &[(&str, &str)], absent: &[&str]) -> CheckResult {
    for (query, want) in cases {
        let hits = store.search(query, &SearchOptions::top_k(10)).await?;
        let got = hit_ids(&hits);
        ensure(got.first() == Some(want), || {
            format!("query {query:?}: expected {want} first, got {got:?}")
        })?;
        for id in absent {
            ensure(!got.contains(id), || {
                format!("query {query:?} must not find {id}: {got:?}")
            })?;
        }
    }
    Ok(())
}

/// English inflections match each other ("running" ↔ "runs", "adopted" ↔
/// "adopting", "puppy" ↔ "puppies"); unrelated words do not; Chinese
/// queries find Chinese text by its bigrams, and a Chinese query sharing no
/// bigram finds nothing.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_search_stemmed(store: Arc<dyn MemoryStore>) -> CheckResult {
    let docs = [
        ("st:1", "I adopted a puppy last spring"),
        ("st:2", "She runs every morning before work"),
        ("st:3", "The painted cars were parked outside"),
        ("st:4", "用户喜欢喝绿茶"),
        ("st:5", "Gardening notes about tomatoes"),
    ];
    for (i, (id, text)) in docs.iter().enumerate() {
        let t = i64::try_from(i).unwrap_or(0);
        store
            .save(MemoryItem::new(*id, *text).with_created_at(at(t)))
            .await?;
    }
    let store = store.as_ref();
    expect(store, &[("adopting puppies", "st:1")], &["st:2", "st:5"]).await?;
    expect(store, &[("running", "st:2"), ("RUN", "st:2")], &["st:1"]).await?;
    expect(store, &[("painting a car", "st:3")], &["st:4"]).await?;
    expect(store, &[("绿茶", "st:4"), ("喜欢", "st:4")], &["st:1"]).await?;
    let none = store.search("红茶咖啡", &SearchOptions::top_k(10)).await?;
    ensure(none.is_empty(), || {
        format!("`红茶咖啡` shares no bigram: {:?}", hit_ids(&none))
    })?;
    // "茶" alone is a one-character query: it matches the character inside
    // the stored word 绿茶 (documents index CJK unigrams beside bigrams).
    expect(store, &[("茶", "st:4")], &["st:1"]).await
}
