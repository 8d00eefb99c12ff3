//! Duplicate saves: one entry per text ([`content_key`](agcore_memory::long_term::content_key))
//! per scope.

use crate::{CheckResult, ensure};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, MemoryUpdate, NewMemory};

/// Saving the same text again (case and spacing aside) updates the entry:
/// type and title from the new save, tags united, metadata merged, the larger
/// weight, archived entries restored; the stored entry equals the returned
/// one; Chinese text too; invalid input changes nothing.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_duplicates_merge(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let mut meta = serde_json::Map::new();
    meta.insert("a".into(), 1.into());
    let first = m
        .save(
            NewMemory::new(MemoryType::User, "tea", "Likes  green tea")
                .with_tags(["Drink"])
                .with_metadata(meta),
        )
        .await?;
    ensure(first.created, || "a first save must create an entry".into())?;
    let mut meta = serde_json::Map::new();
    meta.insert("a".into(), 5.into());
    meta.insert("b".into(), 2.into());
    let second = m
        .save(
            NewMemory::new(MemoryType::Feedback, "tea again", "  likes GREEN\ttea ")
                .with_tags(["tea", "drink"])
                .with_metadata(meta)
                .with_weight(3.0),
        )
        .await?;
    let e = &second.entry;
    ensure(!second.created && e.id == first.entry.id, || {
        "the same text must merge into the entry".into()
    })?;
    ensure(e.tags == ["drink", "tea"], || {
        format!("tags united: {:?}", e.tags)
    })?;
    ensure(
        e.memory_type == MemoryType::Feedback && e.name == "tea again",
        || format!("type and title come from the new save: {e:?}"),
    )?;
    ensure((e.weight - 3.0).abs() < 1e-12, || {
        format!("the larger weight wins: {}", e.weight)
    })?;
    let merged = e.metadata.get("a") == Some(&5.into()) && e.metadata.get("b") == Some(&2.into());
    ensure(e.metadata.len() == 2 && merged, || {
        format!("metadata merged, new keys winning: {:?}", e.metadata)
    })?;
    let stored = m.get(e.id).await?;
    ensure(stored.as_ref() == Some(e), || {
        format!("stored {stored:?} differs from returned {e:?}")
    })?;
    let lighter = m
        .save(NewMemory::new(MemoryType::Feedback, "tea", "likes green tea").with_weight(0.5))
        .await?;
    ensure((lighter.entry.weight - 3.0).abs() < 1e-12, || {
        format!(
            "a lighter duplicate must keep weight 3.0, got {}",
            lighter.entry.weight
        )
    })?;
    m.save(NewMemory::new(MemoryType::User, "", "Likes black tea"))
        .await?;
    let zh = m
        .save(NewMemory::new(MemoryType::User, "", "喜欢 绿茶"))
        .await?;
    let zh2 = m
        .save(NewMemory::new(MemoryType::User, "", " 喜欢  绿茶 "))
        .await?;
    ensure(!zh2.created && zh.entry.id == zh2.entry.id, || {
        "Chinese duplicates merge".into()
    })?;
    let n = m.list(&ListRequest::all()).await?.len();
    ensure(n == 3, || format!("3 distinct texts, listed {n}"))?;
    m.update(zh.entry.id, MemoryUpdate::new().archived(true))
        .await?;
    let again = m
        .save(NewMemory::new(MemoryType::User, "", "喜欢 绿茶"))
        .await?;
    ensure(!again.created && !again.entry.archived, || {
        "saving archived text restores it".into()
    })?;
    let bad = m.save(NewMemory::new(MemoryType::User, "x", " \n ")).await;
    ensure(matches!(bad, Err(MemoryError::InvalidInput(_))), || {
        format!("empty content: {bad:?}")
    })?;
    let bad = m.update(zh.entry.id, MemoryUpdate::new().content("")).await;
    ensure(matches!(bad, Err(MemoryError::InvalidInput(_))), || {
        format!("empty update: {bad:?}")
    })?;
    let kept = m.get(zh.entry.id).await?.map(|e| e.content);
    ensure(kept.as_deref() == Some("喜欢 绿茶"), || {
        format!("invalid input changed the entry: {kept:?}")
    })?;
    let n = m.list(&super::including_archived()).await?.len();
    ensure(n == 3, || format!("invalid input added entries: {n}"))
}

/// The same text in another scope — another user, or another agent for the
/// same user — is a separate entry; merging, updating and deleting in one
/// scope leave the other's copy as it was; content clashes are judged within
/// a scope only.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_duplicates_per_scope(memory: LongTermMemory) -> CheckResult {
    let alice = memory.scope("assistant", "alice")?;
    let bob = memory.scope("assistant", "bob")?;
    let planner = memory.scope("planner", "alice")?;
    let text = "Likes green tea";
    let mut ids = Vec::new();
    for m in [&alice, &bob, &planner] {
        let saved = m
            .save(NewMemory::new(MemoryType::User, "tea", text))
            .await?;
        ensure(saved.created, || {
            format!(
                "{:?}: the text of another scope must create an entry",
                m.scope()
            )
        })?;
        ids.push(saved.entry.id);
    }
    let mut distinct = ids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    ensure(distinct.len() == 3, || format!("ids must differ: {ids:?}"))?;
    let merged = alice
        .save(NewMemory::new(MemoryType::Feedback, "tea!", "likes GREEN tea").with_weight(5.0))
        .await?;
    ensure(
        !merged.created && Some(&merged.entry.id) == ids.first(),
        || "a duplicate merges into its own scope's entry".into(),
    )?;
    for (m, id) in [(&bob, ids.get(1)), (&planner, ids.get(2))] {
        let e = match id {
            Some(id) => m.get(*id).await?,
            None => None,
        };
        let untouched = e.as_ref().is_some_and(|e| {
            e.name == "tea" && e.memory_type == MemoryType::User && e.weight < 5.0
        });
        ensure(untouched, || {
            format!("{:?}: a merge in another scope changed {e:?}", m.scope())
        })?;
        let found = m.find_by_content(text).await?.map(|e| e.id);
        ensure(found.as_ref() == id, || {
            format!(
                "{:?}: find_by_content gave {found:?}, want {id:?}",
                m.scope()
            )
        })?;
        let n = m.list(&ListRequest::all()).await?.len();
        ensure(n == 1, || format!("{:?}: {n} entries, want 1", m.scope()))?;
    }
    let coffee = alice
        .save(NewMemory::new(MemoryType::User, "coffee", "Prefers coffee"))
        .await?
        .entry;
    let clash = alice
        .update(coffee.id, MemoryUpdate::new().content(text))
        .await;
    ensure(matches!(clash, Err(MemoryError::AlreadyExists(_))), || {
        format!("a clash within the scope must be AlreadyExists: {clash:?}")
    })?;
    if let Some(bob_id) = ids.get(1) {
        let moved = bob
            .update(*bob_id, MemoryUpdate::new().content("Prefers coffee"))
            .await;
        ensure(moved.is_ok(), || {
            format!("text held only by another scope must be free here: {moved:?}")
        })?;
    }
    if let Some(alice_id) = ids.first() {
        alice.delete(*alice_id).await?;
    }
    let left = planner.find_by_content(text).await?;
    ensure(left.is_some(), || {
        "deleting in one scope removed another scope's copy".into()
    })
}
