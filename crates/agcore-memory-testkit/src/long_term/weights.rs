//! Weights: use, the usage log, archiving and age decay.

use chrono::{Duration, SubsecRound, Utc};

use crate::{CheckResult, ensure};
use agcore_memory::long_term::{
    ArchivedFilter, ListRequest, LongTermMemory, MemoryType, NewMemory, SearchRequest, apply,
};

/// A referenced use raises the weight ([`WeightRules::after_use`](agcore_memory::long_term::WeightRules::after_use)),
/// an unreferenced one lowers it; each counts, sets `last_used_at` and
/// writes a usage-log row (session, query, referenced, entry id), oldest
/// first; ids of other scopes are ignored; deleting an entry deletes its
/// usage rows.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_use_and_usage_log(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let other = memory.scope("agent", "u2")?;
    let e = m
        .save(NewMemory::new(MemoryType::User, "tea", "Likes green tea"))
        .await?
        .entry;
    let f = m
        .save(NewMemory::new(
            MemoryType::User,
            "cake",
            "Likes cheese cake",
        ))
        .await?
        .entry;
    let foreign = other
        .save(NewMemory::new(MemoryType::User, "x", "Other scope"))
        .await?
        .entry;
    ensure(m.usage_log(e.id).await?.is_empty(), || {
        "a new entry has no usage rows".into()
    })?;
    let n = m
        .record_use("s1", "what does she drink", &[e.id, f.id, foreign.id], true)
        .await?;
    ensure(n == 2, || {
        format!("{n} entries updated; the foreign id must be ignored")
    })?;
    m.record_use("s1", "dessert? 甜点", &[f.id], false).await?;
    let e2 = m.get(e.id).await?;
    let f2 = m.get(f.id).await?;
    let rules = memory.rules();
    ensure(
        e2.as_ref().is_some_and(|x| {
            (x.weight - rules.after_use(e.weight, true)).abs() < 1e-9
                && x.weight > e.weight
                && x.use_count == 1
                && x.last_used_at.is_some()
        }),
        || format!("after a referenced use: {e2:?}"),
    )?;
    let want = rules.after_use(rules.after_use(f.weight, true), false);
    ensure(
        f2.as_ref().is_some_and(|x| {
            (x.weight - want).abs() < 1e-9 && x.use_count == 2 && x.last_used_at.is_some()
        }),
        || format!("after two uses: {f2:?}, want weight {want}"),
    )?;
    let log = m.usage_log(f.id).await?;
    let rows: Vec<_> = log
        .iter()
        .map(|r| {
            (
                r.memory_id,
                r.session_id.as_str(),
                r.query.as_str(),
                r.was_referenced,
            )
        })
        .collect();
    ensure(
        rows == [
            (f.id, "s1", "what does she drink", true),
            (f.id, "s1", "dessert? 甜点", false),
        ],
        || format!("usage log {rows:?}"),
    )?;
    ensure(
        log.iter()
            .zip(log.iter().skip(1))
            .all(|(a, b)| a.used_at <= b.used_at),
        || "usage rows must be oldest first".into(),
    )?;
    ensure(other.usage_log(foreign.id).await?.is_empty(), || {
        "the foreign entry got a usage row".into()
    })?;
    let untouched = other.get(foreign.id).await?;
    ensure(untouched.as_ref().is_some_and(|x| x.use_count == 0), || {
        format!("another scope's record_use changed {untouched:?}")
    })?;
    m.delete(f.id).await?;
    ensure(m.usage_log(f.id).await?.is_empty(), || {
        "usage rows outlived their entry".into()
    })?;
    ensure(m.usage_log(e.id).await?.len() == 1, || {
        "deleting one entry removed another entry's usage rows".into()
    })
}

/// `archive_below` archives only this scope's active entries with weight
/// strictly below the threshold and counts them (0 when repeated); archived
/// entries leave search and the default list, stay in `ArchivedFilter::Only`
/// and come back with `restore`.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_archive_below(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let other = memory.scope("agent", "u2")?;
    let low = m
        .save(NewMemory::new(MemoryType::Project, "old", "Old project note").with_weight(0.2))
        .await?
        .entry;
    let edge = m
        .save(NewMemory::new(MemoryType::Project, "edge", "Edge project note").with_weight(0.5))
        .await?
        .entry;
    m.save(NewMemory::new(MemoryType::Project, "new", "Current project note").with_weight(2.0))
        .await?;
    let foreign = other
        .save(NewMemory::new(MemoryType::Project, "old", "Old project note").with_weight(0.2))
        .await?
        .entry;
    let n = m.archive_below(0.5).await?;
    ensure(n == 1, || {
        format!("archive_below(0.5) archived {n}, want 1 (0.5 is not below 0.5)")
    })?;
    ensure(m.archive_below(0.5).await? == 0, || {
        "a second archive_below must archive nothing".into()
    })?;
    let edge_now = m.get(edge.id).await?;
    ensure(edge_now.is_some_and(|e| !e.archived), || {
        "an entry at the threshold must stay active".into()
    })?;
    let theirs = other.get(foreign.id).await?;
    ensure(theirs.is_some_and(|e| !e.archived), || {
        "archive_below archived another scope's entry".into()
    })?;
    let hits = m.search("old project note", 5).await?;
    ensure(hits.iter().all(|h| h.entry.id != low.id), || {
        "archived entry still searched".into()
    })?;
    let hits = m
        .search_with(
            "old project note",
            &SearchRequest::top_k(5).archived(ArchivedFilter::Only),
        )
        .await?;
    ensure(hits.first().map(|h| h.entry.id) == Some(low.id), || {
        "ArchivedFilter::Only must find the archived entry".into()
    })?;
    let listed = m.list(&ListRequest::all()).await?;
    ensure(
        listed.iter().all(|e| e.id != low.id) && listed.len() == 2,
        || format!("default list after archiving: {} entries", listed.len()),
    )?;
    let archived = m.archived().await?;
    ensure(
        archived.len() == 1
            && archived
                .first()
                .is_some_and(|e| e.id == low.id && e.archived),
        || format!("archived list {archived:?}"),
    )?;
    let restored = m.restore(low.id).await?;
    ensure(!restored.archived, || "restore must un-archive".into())?;
    let hits = m.search("old project note", 5).await?;
    ensure(hits.first().map(|h| h.entry.id) == Some(low.id), || {
        "a restored entry must be searched again".into()
    })
}

/// Maintenance decays weights by age (an entry imported with a year-old
/// `weight_updated_at`), archives those that fall below the rules'
/// archive threshold and reports the counts; fresh entries keep their
/// weight; `active` equals the default list's length.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_maintenance(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let fresh = m
        .save(NewMemory::new(MemoryType::Project, "new", "Current project note").with_weight(2.0))
        .await?
        .entry;
    let rules = *memory.rules();
    let long_ago = (Utc::now() - Duration::days(365)).trunc_subsecs(6);
    let mut stale = apply::new_entry(
        m.scope(),
        NewMemory::new(MemoryType::User, "stale", "A stale preference"),
        &rules,
        long_ago,
    );
    stale.weight = 1.0;
    m.import_entries(vec![stale]).await?;
    let report = m.maintenance().await?;
    ensure(report.decayed >= 1 && report.archived == 1, || {
        format!("maintenance report {report:?}: want the stale entry decayed and archived")
    })?;
    let all = m.list(&super::including_archived()).await?;
    let stale = all.iter().find(|e| e.name == "stale");
    ensure(
        stale.is_some_and(|e| e.archived && e.weight < rules.archive_threshold),
        || format!("stale entry after maintenance: {stale:?}"),
    )?;
    let kept = all.iter().find(|e| e.id == fresh.id);
    ensure(
        kept.is_some_and(|e| !e.archived && e.weight > 1.99 && e.weight <= 2.0),
        || format!("a fresh entry must keep its weight: {kept:?}"),
    )?;
    let active = m.list(&ListRequest::all()).await?.len();
    ensure(active == report.active && active == 1, || {
        format!("{active} active, report says {}", report.active)
    })?;
    ensure(m.search("stale preference", 5).await?.is_empty(), || {
        "an entry archived by maintenance is still searched".into()
    })
}
