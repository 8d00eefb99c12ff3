//! Scope isolation and the listing of scopes.

use crate::{CheckResult, ensure};
use agcore_memory::long_term::{
    ArchivedFilter, ListRequest, LongTermMemory, MemoryScope, MemoryType, MemoryUpdate, NewMemory,
    SearchRequest,
};

/// A scope never sees another's entries by id, list, search, find by
/// content, update, delete, history, usage log or `record_use`; scopes
/// whose names concatenate alike (`ab`/`c`, `a`/`bc`) are apart; and another
/// scope's data does not change its search scores (statistics are per scope).
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
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
    alice.record_use("s1", "tea?", &[a.id], true).await?;
    let before = alice.search("green tea", 5).await?;
    let score = before.first().map(|h| h.score).unwrap_or_default();
    // Many of bob's entries share the terms; alice's statistics must not move.
    for i in 0..30 {
        bob.save(NewMemory::new(
            MemoryType::User,
            "tea",
            format!("Green tea note {i} about tea"),
        ))
        .await?;
    }
    let after = alice.search("green tea", 5).await?;
    let now = after.first().map(|h| h.score).unwrap_or_default();
    ensure(
        after.len() == 1 && score > 0.0 && (now - score).abs() <= 1e-9 * score,
        || {
            format!(
                "alice's search changed after bob's saves: {score} -> {now} ({} hits)",
                after.len()
            )
        },
    )?;
    ensure(bob.get(a.id).await?.is_none(), || {
        "bob read alice's entry by id".into()
    })?;
    ensure(other_agent.get(a.id).await?.is_none(), || {
        "another agent read alice's entry".into()
    })?;
    ensure(
        other_agent.find_by_content(&a.content).await?.is_none(),
        || "another agent found alice's entry by content".into(),
    )?;
    ensure(!bob.delete(a.id).await?, || {
        "bob deleted alice's entry".into()
    })?;
    let upd = bob.update(a.id, MemoryUpdate::new().name("x")).await;
    ensure(
        matches!(upd, Err(agcore_memory::MemoryError::NotFound(_))),
        || format!("bob's update of alice's entry must be NotFound: {upd:?}"),
    )?;
    let used = bob.record_use("s1", "q", &[a.id], true).await?;
    ensure(used == 0, || {
        format!("bob's record_use touched {used} of alice's entries")
    })?;
    let hits = other_agent
        .search_with(
            "green tea",
            &SearchRequest::top_k(5).archived(ArchivedFilter::Include),
        )
        .await?;
    ensure(hits.is_empty(), || {
        "another agent's search saw alice".into()
    })?;
    ensure(
        bob.usage_log(a.id).await?.is_empty() && bob.history(a.id).await?.is_empty(),
        || "bob read alice's usage log or history".into(),
    )?;
    let mine = alice.get(a.id).await?;
    ensure(
        mine.as_ref()
            .is_some_and(|e| e.name == "tea" && e.use_count == 1),
        || format!("another scope's calls changed alice's entry: {mine:?}"),
    )?;
    let n = alice.list(&ListRequest::all()).await?.len();
    ensure(n == 2, || format!("alice has {n} entries"))?;
    let n = other_agent.list(&super::including_archived()).await?.len();
    ensure(n == 0, || format!("another agent lists {n} entries"))?;

    let ab_c = memory.scope("ab", "c")?;
    let a_bc = memory.scope("a", "bc")?;
    let x = ab_c
        .save(NewMemory::new(MemoryType::User, "", "Adjacent scope fact"))
        .await?
        .entry;
    ensure(a_bc.get(x.id).await?.is_none(), || {
        "scope (a, bc) read an entry of (ab, c)".into()
    })?;
    ensure(
        a_bc.search("adjacent scope fact", 5).await?.is_empty(),
        || "scope (a, bc) searched an entry of (ab, c)".into(),
    )?;
    let y = a_bc
        .save(NewMemory::new(MemoryType::User, "", "Adjacent scope fact"))
        .await?;
    ensure(y.created && y.entry.id != x.id, || {
        "(a, bc) and (ab, c) must be separate scopes".into()
    })
}

/// `scopes()` lists each scope holding entries or buffered turns once —
/// including a scope with only buffered turns — and no scope that was never
/// written; a fresh memory has none.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_scopes(memory: LongTermMemory) -> CheckResult {
    let none = memory.scopes().await?;
    ensure(none.is_empty(), || {
        format!("a fresh memory lists scopes {none:?}")
    })?;
    let alice = memory.scope("assistant", "alice")?;
    let bob = memory.scope("assistant", "bob")?;
    let planner = memory.scope("planner", "用户")?;
    let _unused = memory.scope("never", "written")?;
    for text in ["One", "Two", "Three"] {
        alice
            .save(NewMemory::new(MemoryType::User, "", text))
            .await?;
    }
    bob.save(NewMemory::new(MemoryType::Project, "", "Bob's project"))
        .await?;
    planner.buffer_append("s1", "你好", "你好！").await?;
    let mut got = memory.scopes().await?;
    got.sort();
    let mut want = vec![
        MemoryScope::new("assistant", "alice")?,
        MemoryScope::new("assistant", "bob")?,
        MemoryScope::new("planner", "用户")?,
    ];
    want.sort();
    ensure(got == want, || format!("scopes {got:?}, want {want:?}"))
}
