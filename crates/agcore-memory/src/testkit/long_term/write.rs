//! Saving, merging, updating, deleting and their history.

use crate::MemoryError;
use crate::long_term::{
    HistoryReason, ListRequest, LongTermMemory, MemoryType, MemoryUpdate, NewMemory,
};
use crate::testkit::{CheckFailure, CheckResult, ensure};

/// Saving the same text again (case and spacing aside) updates the entry:
/// type and title from the new save, tags united, metadata merged, the larger
/// weight, archived entries restored; the stored entry equals the returned
/// one; Chinese text too; invalid input changes nothing.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
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
    ensure(e.memory_type == MemoryType::Feedback, || {
        "the type comes from the new save".into()
    })?;
    ensure((e.weight - 3.0).abs() < 1e-12, || {
        format!("the larger weight wins: {}", e.weight)
    })?;
    ensure(e.metadata.len() == 2, || "metadata is merged".into())?;
    let stored = m.get(e.id).await?;
    ensure(stored.as_ref() == Some(e), || {
        format!("stored {stored:?} differs from returned {e:?}")
    })?;
    m.save(NewMemory::new(MemoryType::User, "", "Likes black tea"))
        .await?;
    let zh = m
        .save(NewMemory::new(MemoryType::User, "", "喜欢 绿茶"))
        .await?;
    let zh2 = m
        .save(NewMemory::new(MemoryType::User, "", " 喜欢  绿茶 "))
        .await?;
    ensure(zh.entry.id == zh2.entry.id, || {
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
    })
}

/// Supersede and content updates write the old text to the history;
/// metadata-only updates do not; content clashing with another entry is
/// refused; delete keeps the text in history, frees it for a new save, and
/// a missing id is `NotFound`.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_history(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let e = m
        .save(NewMemory::new(
            MemoryType::Project,
            "deadline",
            "Due on April 15",
        ))
        .await?
        .entry;
    let other = m
        .save(NewMemory::new(MemoryType::Project, "x", "Other text"))
        .await?
        .entry;
    m.supersede(e.id, "Due on April 20").await?;
    m.update(
        e.id,
        MemoryUpdate::new()
            .content("Due on April 22")
            .description("moved twice"),
    )
    .await?;
    m.update(e.id, MemoryUpdate::new().tags(["sprint"])).await?;
    let clash = m
        .update(e.id, MemoryUpdate::new().content("other  TEXT"))
        .await;
    ensure(matches!(clash, Err(MemoryError::AlreadyExists(_))), || {
        format!("clashing content: {clash:?}")
    })?;
    let current = m.get(e.id).await?.map(|e| e.content);
    ensure(current.as_deref() == Some("Due on April 22"), || {
        format!("current text {current:?}")
    })?;
    let h: Vec<_> = m
        .history(e.id)
        .await?
        .into_iter()
        .map(|h| (h.content, h.reason))
        .collect();
    let want = vec![
        ("Due on April 15".to_owned(), HistoryReason::Supersede),
        ("Due on April 20".to_owned(), HistoryReason::Update),
    ];
    ensure(h == want, || format!("history {h:?}"))?;
    let hits = m.search("April 15", 5).await?;
    ensure(
        hits.iter().all(|h| h.entry.content != "Due on April 15"),
        || "search sees only current text".into(),
    )?;
    ensure(m.delete(other.id).await?, || {
        "delete of an entry returns true".into()
    })?;
    ensure(!m.delete(other.id).await?, || {
        "a second delete returns false".into()
    })?;
    ensure(m.get(other.id).await?.is_none(), || {
        "deleted entry still found".into()
    })?;
    let h = m.history(other.id).await?;
    let deleted = h.first().map(|h| (h.content.as_str(), h.reason));
    ensure(
        h.len() == 1 && deleted == Some(("Other text", HistoryReason::Delete)),
        || format!("delete history {h:?}"),
    )?;
    let again = m
        .save(NewMemory::new(MemoryType::Project, "x", "Other text"))
        .await?;
    ensure(again.created, || "deleted text saves as a new entry".into())?;
    match m.update(999_999_999, MemoryUpdate::new().name("n")).await {
        Err(MemoryError::NotFound(_)) => Ok(()),
        other => Err(CheckFailure(format!("update of a missing id: {other:?}"))),
    }
}
