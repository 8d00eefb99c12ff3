//! Scoped BM25 search and scope isolation.

use crate::long_term::{
    ArchivedFilter, ListRequest, LongTermMemory, MemoryType, MemoryUpdate, NewMemory, SearchRequest,
};
use crate::testkit::{CheckResult, ensure};

/// The relevant entry ranks first in English and Chinese; type and archive
/// filters hold; query syntax and SQL meta-characters are literal text and
/// never fail; a query without keywords finds nothing.
///
/// # Errors
/// [`CheckFailure`](crate::testkit::CheckFailure) describing the first broken expectation.
pub async fn check_search(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let tea = m
        .save(NewMemory::new(
            MemoryType::User,
            "drink",
            "Alice drinks green tea every afternoon",
        ))
        .await?
        .entry;
    let db = m
        .save(NewMemory::new(
            MemoryType::Project,
            "database",
            "The project runs on PostgreSQL 15",
        ))
        .await?
        .entry;
    let zh = m
        .save(NewMemory::new(
            MemoryType::Feedback,
            "语言",
            "用户喜欢用中文交流，回答要简短",
        ))
        .await?
        .entry;
    m.save(NewMemory::new(
        MemoryType::Reference,
        "docs",
        "Design docs live in the team wiki",
    ))
    .await?;
    for (query, want) in [
        ("green tea", tea.id),
        ("which database does the project use", db.id),
        ("中文交流", zh.id),
    ] {
        let hits = m.search(query, 3).await?;
        let first = hits.first().map(|h| h.entry.id);
        ensure(first == Some(want), || {
            format!("`{query}`: first hit {first:?}, want {want}")
        })?;
        ensure(
            hits.iter()
                .zip(hits.iter().skip(1))
                .all(|(a, b)| a.score >= b.score),
            || format!("`{query}`: hits not best first"),
        )?;
    }
    let typed = m
        .search_with(
            "green tea database",
            &SearchRequest::top_k(5).of_type(MemoryType::Project),
        )
        .await?;
    ensure(
        typed
            .iter()
            .all(|h| h.entry.memory_type == MemoryType::Project)
            && !typed.is_empty(),
        || "the type filter must keep only project entries".into(),
    )?;
    m.update(tea.id, MemoryUpdate::new().archived(true)).await?;
    let hits = m.search("green tea", 5).await?;
    ensure(hits.iter().all(|h| h.entry.id != tea.id), || {
        "archived entries are excluded by default".into()
    })?;
    let hits = m
        .search_with(
            "green tea",
            &SearchRequest::top_k(5).archived(ArchivedFilter::Only),
        )
        .await?;
    ensure(hits.first().map(|h| h.entry.id) == Some(tea.id), || {
        "ArchivedFilter::Only finds the archived entry".into()
    })?;
    for query in [
        "\"unterminated",
        "tea* OR 1=1; --",
        "NEAR(a b)",
        "'; DROP TABLE memory; --",
        "\\%_",
        "\u{0}",
    ] {
        m.search(query, 5)
            .await
            .map_err(|e| crate::testkit::CheckFailure(format!("query {query:?} failed: {e}")))?;
    }
    ensure(m.search("the and of", 5).await?.is_empty(), || {
        "a query of stop words finds nothing".into()
    })?;
    let n = m.list(&super::including_archived()).await?.len();
    ensure(n == 4, || {
        format!("hostile queries changed the scope: {n} entries")
    })
}

/// A scope never sees another's entries by id, list, search, update or
/// delete, and another scope's data does not change its search scores
/// (statistics are per scope).
///
/// # Errors
/// [`CheckFailure`](crate::testkit::CheckFailure) describing the first broken expectation.
pub async fn check_scope_isolation(memory: LongTermMemory) -> CheckResult {
    let alice = memory.scope("assistant", "alice")?;
    let bob = memory.scope("assistant", "bob")?;
    let other_agent = memory.scope("planner", "alice")?;
    let a = alice
        .save(NewMemory::new(
            MemoryType::User,
            "tea",
            "Prefers green tea in the morning",
        ))
        .await?
        .entry;
    alice
        .save(NewMemory::new(
            MemoryType::User,
            "walk",
            "Walks the dog after lunch",
        ))
        .await?;
    let before = alice.search("green tea", 5).await?;
    let score = before.first().map(|h| h.score);
    // Many of bob's entries share the terms; alice's statistics must not move.
    for i in 0..30 {
        bob.save(NewMemory::new(
            MemoryType::User,
            "tea",
            format!("Green tea note {i} about tea"),
        ))
        .await?;
    }
    let same = bob
        .save(NewMemory::new(
            MemoryType::User,
            "tea",
            "Prefers green tea in the morning",
        ))
        .await?;
    ensure(same.created && same.entry.id != a.id, || {
        "the same text in another scope is a separate entry".into()
    })?;
    let after = alice.search("green tea", 5).await?;
    ensure(
        after.len() == 1 && after.first().map(|h| h.score) == score,
        || {
            format!(
                "alice's search changed after bob's saves: {score:?} -> {:?}",
                after.first().map(|h| h.score)
            )
        },
    )?;
    ensure(bob.get(a.id).await?.is_none(), || {
        "bob read alice's entry by id".into()
    })?;
    ensure(other_agent.get(a.id).await?.is_none(), || {
        "another agent read alice's entry".into()
    })?;
    ensure(!bob.delete(a.id).await?, || {
        "bob deleted alice's entry".into()
    })?;
    let upd = bob.update(a.id, MemoryUpdate::new().name("x")).await;
    ensure(upd.is_err(), || "bob updated alice's entry".into())?;
    ensure(other_agent.search("green tea", 5).await?.is_empty(), || {
        "another agent's search saw alice".into()
    })?;
    ensure(
        bob.usage_log(a.id).await?.is_empty() && bob.history(a.id).await?.is_empty(),
        || "bob read alice's usage log or history".into(),
    )?;
    let n = alice.list(&ListRequest::all()).await?.len();
    ensure(n == 2, || format!("alice has {n} entries"))?;
    let scopes = memory.scopes().await?;
    ensure(scopes.len() == 2, || format!("scopes {scopes:?}"))
}
