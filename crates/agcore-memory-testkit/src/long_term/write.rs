//! Saving, reading, updating and deleting entries, and their history.

use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    HistoryReason, ListRequest, LongTermMemory, MemoryType, MemoryUpdate, NewMemory,
};

/// A saved entry comes back from `get` exactly as `save` returned it (type,
/// title, text, description, tags lowercased and sorted, metadata, weight,
/// counters and timestamps); `find_by_content` finds it by normalised text;
/// an update changes the given fields only and is stored as returned;
/// weights are clamped to the rules' range and a non-finite one is refused;
/// after a delete the entry is gone from `get`, `list`, `search` and
/// `find_by_content`, a second delete returns `false` and an update is
/// `NotFound`; a missing id reads as `None`.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_save_get_update_delete(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let rules = *memory.rules();
    let mut meta = serde_json::Map::new();
    meta.insert("source".into(), "chat".into());
    meta.insert("n".into(), 2.into());
    let text = "Docs live at https://wiki.example.com/team — ask \"Bob\" (鲍勃) first";
    let saved = m
        .save(
            NewMemory::new(MemoryType::Reference, "team docs", text)
                .with_description("where the docs are")
                .with_tags(["Wiki", " docs ", "wiki"])
                .with_metadata(meta.clone())
                .with_weight(2.5),
        )
        .await?;
    ensure(saved.created, || "a first save must create an entry".into())?;
    let e = &saved.entry;
    let fields_ok = e.agent_name == "agent"
        && e.user_id == "u1"
        && e.memory_type == MemoryType::Reference
        && e.name == "team docs"
        && e.content == text
        && e.description == "where the docs are"
        && e.tags == ["docs", "wiki"]
        && e.metadata == meta
        && (e.weight - 2.5).abs() < 1e-12
        && !e.archived
        && e.use_count == 0
        && e.last_used_at.is_none()
        && e.created_at == e.updated_at;
    ensure(fields_ok, || format!("saved entry has wrong fields: {e:?}"))?;
    let got = m.get(e.id).await?;
    ensure(got.as_ref() == Some(e), || {
        format!("get returned {got:?}, save returned {e:?}")
    })?;
    let derived = m
        .save(NewMemory::new(
            MemoryType::User,
            "",
            "Untitled note\nsecond line",
        ))
        .await?
        .entry;
    ensure(
        derived.id != e.id && !derived.name.trim().is_empty(),
        || format!("a second entry needs its own id and a derived title: {derived:?}"),
    )?;
    let found = m
        .find_by_content(
            "  DOCS live at https://wiki.example.com/team — ask \"bob\" (鲍勃)   first ",
        )
        .await?;
    ensure(found.as_ref().map(|f| f.id) == Some(e.id), || {
        format!("find_by_content with other case and spacing: {found:?}")
    })?;
    ensure(m.find_by_content("never saved").await?.is_none(), || {
        "find_by_content of unknown text must be None".into()
    })?;

    let mut meta2 = serde_json::Map::new();
    meta2.insert("replaced".into(), true.into());
    let updated = m
        .update(
            e.id,
            MemoryUpdate::new()
                .name("wiki")
                .description("the team wiki")
                .memory_type(MemoryType::Project)
                .tags(["Team"])
                .metadata(meta2.clone())
                .weight(4.0),
        )
        .await?;
    let upd_ok = updated.id == e.id
        && updated.name == "wiki"
        && updated.content == text
        && updated.description == "the team wiki"
        && updated.memory_type == MemoryType::Project
        && updated.tags == ["team"]
        && updated.metadata == meta2
        && (updated.weight - 4.0).abs() < 1e-12
        && updated.created_at == e.created_at
        && updated.updated_at >= e.updated_at;
    ensure(upd_ok, || format!("update gave {updated:?}"))?;
    let got = m.get(e.id).await?;
    ensure(got.as_ref() == Some(&updated), || {
        format!("get after update returned {got:?}, update returned {updated:?}")
    })?;
    let clamped = m.update(e.id, MemoryUpdate::new().weight(1e9)).await?;
    ensure((clamped.weight - rules.max).abs() < 1e-9, || {
        format!(
            "weight 1e9 must clamp to {}, got {}",
            rules.max, clamped.weight
        )
    })?;
    let big = m
        .save(NewMemory::new(MemoryType::User, "", "Heavy note").with_weight(1e9))
        .await?
        .entry;
    ensure((big.weight - rules.max).abs() < 1e-9, || {
        format!(
            "a saved weight of 1e9 must clamp to {}, got {}",
            rules.max, big.weight
        )
    })?;
    let nan = m.update(e.id, MemoryUpdate::new().weight(f64::NAN)).await;
    ensure(matches!(nan, Err(MemoryError::InvalidInput(_))), || {
        format!("a NaN weight must be InvalidInput, got {nan:?}")
    })?;
    let kept = m.get(e.id).await?.map(|x| x.weight);
    ensure(kept == Some(clamped.weight), || {
        format!("a refused update changed the weight: {kept:?}")
    })?;

    ensure(m.delete(e.id).await?, || {
        "delete of an entry returns true".into()
    })?;
    ensure(m.get(e.id).await?.is_none(), || {
        "deleted entry still read by id".into()
    })?;
    let listed = m.list(&super::including_archived()).await?;
    ensure(listed.iter().all(|x| x.id != e.id), || {
        "deleted entry still listed".into()
    })?;
    let hits = m.search("wiki docs", 10).await?;
    ensure(hits.iter().all(|h| h.entry.id != e.id), || {
        "deleted entry still searched".into()
    })?;
    ensure(m.find_by_content(text).await?.is_none(), || {
        "deleted entry still found by content".into()
    })?;
    ensure(!m.delete(e.id).await?, || {
        "a second delete returns false".into()
    })?;
    let gone = m.update(e.id, MemoryUpdate::new().name("x")).await;
    ensure(matches!(gone, Err(MemoryError::NotFound(_))), || {
        format!("update of a deleted entry: {gone:?}")
    })?;
    ensure(
        m.get(i64::MAX).await?.is_none() && !m.delete(i64::MAX).await?,
        || "a never-used id must read as None and delete as false".into(),
    )
}

/// Supersede and content updates write the old text to the history (oldest
/// first, with their reasons); updates of other fields do not; content
/// clashing with another entry of the scope is `AlreadyExists` and changes
/// nothing; search sees only the current text; delete keeps the text in the
/// history and frees it for a new save; a missing id is `NotFound`.
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
    ensure(m.history(e.id).await?.is_empty(), || {
        "a new entry has no history".into()
    })?;
    let superseded = m.supersede(e.id, "Due on April 20").await?;
    ensure(
        superseded.id == e.id && superseded.content == "Due on April 20",
        || format!("supersede keeps the id and sets the text: {superseded:?}"),
    )?;
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
        .map(|h| (h.memory_id, h.content, h.reason))
        .collect();
    let want = vec![
        (e.id, "Due on April 15".to_owned(), HistoryReason::Supersede),
        (e.id, "Due on April 20".to_owned(), HistoryReason::Update),
    ];
    ensure(h == want, || format!("history {h:?}, want {want:?}"))?;
    let hits = m.search("April 15", 5).await?;
    ensure(
        hits.iter().all(|h| h.entry.content != "Due on April 15"),
        || "search sees only current text".into(),
    )?;
    ensure(
        m.find_by_content("Due on April 15").await?.is_none(),
        || "an old text must not be found by content".into(),
    )?;
    ensure(m.delete(other.id).await?, || {
        "delete of an entry returns true".into()
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
    ensure(again.created && again.entry.id != other.id, || {
        "deleted text saves as a new entry".into()
    })?;
    let n = m.list(&ListRequest::all()).await?.len();
    ensure(n == 2, || format!("2 entries expected, listed {n}"))?;
    match m.update(999_999_999, MemoryUpdate::new().name("n")).await {
        Err(MemoryError::NotFound(_)) => Ok(()),
        other => Err(CheckFailure(format!("update of a missing id: {other:?}"))),
    }
}

/// `get_many` answers one entry per id in the order asked, each as `get`
/// gives it: `None` for a missing id and for another scope's entry, a
/// repeated id each time.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_get_many(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let other = memory.scope("agent", "u2")?;
    let save = |text: &'static str| {
        let m = m.clone();
        async move {
            m.save(NewMemory::new(MemoryType::User, "", text))
                .await
                .map(|s| s.entry.id)
        }
    };
    let (tea, city, runs) = (
        save("Likes jasmine tea").await?,
        save("住在杭州").await?,
        save("Runs on Sundays").await?,
    );
    let foreign = other
        .save(NewMemory::new(MemoryType::User, "", "Someone else's fact"))
        .await?
        .entry
        .id;
    let missing = tea.max(city).max(runs).max(foreign) + 1000;
    let asked = [runs, missing, tea, foreign, city, runs];
    let got = m.get_many(&asked).await?;
    let mut want = Vec::new();
    for &id in &asked {
        want.push(m.get(id).await?);
    }
    let expected_some = [true, false, true, false, true, true];
    let shape: Vec<bool> = got.iter().map(Option::is_some).collect();
    ensure(shape == expected_some && got == want, || {
        format!("get_many({asked:?}) returned {got:?}, get per id {want:?}")
    })?;
    let none = m.get_many(&[]).await?;
    ensure(none.is_empty(), || {
        format!("get_many of no id returned {none:?}")
    })
}
