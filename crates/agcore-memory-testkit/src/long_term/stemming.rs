//! Scoped search through inflections: English words are stemmed on both
//! sides (the store analyzer,
//! [`index_terms`](agcore_memory::retriever::index_terms)); Chinese text is matched
//! by its character bigrams, unchanged.

use crate::{CheckResult, ensure};
use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};

/// English inflections in the content and the title match each other
/// ("adopted" ↔ "adopting", "puppy" ↔ "puppies", "runs" ↔ "running");
/// Chinese queries find Chinese entries by bigrams; a Chinese query sharing
/// no bigram, and an unrelated English word, find nothing.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_search_stemmed(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "stemming")?;
    let mut ids = Vec::new();
    for (ty, name, content) in [
        (MemoryType::User, "pet", "I adopted a puppy last spring"),
        (MemoryType::User, "habit", "Alice runs every morning"),
        (MemoryType::Project, "paintings", "Oil on canvas, framed"),
        (MemoryType::User, "饮品", "用户喜欢喝绿茶"),
    ] {
        ids.push(m.save(NewMemory::new(ty, name, content)).await?.entry.id);
    }
    for (query, index) in [
        ("adopting puppies", 0),
        ("running", 1),
        ("painting", 2),
        ("绿茶", 3),
        ("喜欢", 3),
    ] {
        let want = ids.get(index).copied();
        let hits = m.search(query, 5).await?;
        let got: Vec<i64> = hits.iter().map(|h| h.entry.id).collect();
        ensure(got.first().copied() == want, || {
            format!("`{query}`: hits {got:?}, want {want:?} first")
        })?;
        ensure(got.len() == 1, || {
            format!("`{query}`: only {want:?} shares a term, got {got:?}")
        })?;
    }
    for query in ["红茶咖啡", "gardening"] {
        let hits = m.search(query, 5).await?;
        ensure(hits.is_empty(), || {
            format!("`{query}` shares no term, got {} hits", hits.len())
        })?;
    }
    Ok(())
}
