//! Weights: use, the usage log, archiving and age decay.

use chrono::{Duration, SubsecRound, Utc};

use crate::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory, apply};
use crate::testkit::{CheckResult, ensure};

/// A referenced use raises the weight, an unreferenced one lowers it, each
/// writes a usage-log row and counts; ids of other scopes are ignored;
/// deleting an entry deletes its usage rows.
///
/// # Errors
/// [`CheckFailure`](crate::testkit::CheckFailure) describing the first broken expectation.
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
    let n = m
        .record_use("s1", "what does she drink", &[e.id, f.id, foreign.id], true)
        .await?;
    ensure(n == 2, || {
        format!("{n} entries updated; the foreign id must be ignored")
    })?;
    m.record_use("s1", "dessert?", &[f.id], false).await?;
    let e2 = m.get(e.id).await?;
    let f2 = m.get(f.id).await?;
    let rules = memory.rules();
    ensure(
        e2.as_ref().is_some_and(|x| {
            (x.weight - rules.after_use(e.weight, true)).abs() < 1e-9 && x.use_count == 1
        }),
        || format!("after a referenced use: {e2:?}"),
    )?;
    let want = rules.after_use(rules.after_use(f.weight, true), false);
    ensure(
        f2.as_ref().is_some_and(|x| {
            (x.weight - want).abs() < 1e-9 && x.use_count == 2 && x.last_used_at.is_some()
        }),
        || format!("after two uses: {f2:?}"),
    )?;
    let log = m.usage_log(f.id).await?;
    let rows: Vec<_> = log
        .iter()
        .map(|r| (r.session_id.as_str(), r.query.as_str(), r.was_referenced))
        .collect();
    ensure(
        rows == [
            ("s1", "what does she drink", true),
            ("s1", "dessert?", false),
        ],
        || format!("usage log {rows:?}"),
    )?;
    ensure(other.usage_log(foreign.id).await?.is_empty(), || {
        "the foreign entry got a usage row".into()
    })?;
    m.delete(f.id).await?;
    ensure(m.usage_log(f.id).await?.is_empty(), || {
        "usage rows outlived their entry".into()
    })
}

/// `archive_below` archives only active entries under the threshold;
/// maintenance decays weights by age (entries imported with an old
/// `weight_updated_at`) and archives those that fall below the rules'
/// threshold; archived entries leave search and the default list.
///
/// # Errors
/// [`CheckFailure`](crate::testkit::CheckFailure) describing the first broken expectation.
pub async fn check_archive_and_maintenance(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let low = m
        .save(NewMemory::new(MemoryType::Project, "old", "Old project note").with_weight(0.2))
        .await?
        .entry;
    m.save(NewMemory::new(MemoryType::Project, "new", "Current project note").with_weight(2.0))
        .await?;
    let n = m.archive_below(0.5).await?;
    ensure(n == 1, || format!("archive_below(0.5) archived {n}"))?;
    ensure(
        m.search("project note", 5)
            .await?
            .iter()
            .all(|h| h.entry.id != low.id),
        || "archived entry still searched".into(),
    )?;
    let archived = m.list(&ListRequest::archived_only()).await?;
    ensure(
        archived.len() == 1 && archived.first().is_some_and(|e| e.id == low.id),
        || format!("archived list {archived:?}"),
    )?;

    // An entry last weighted a year ago decays below any sane threshold.
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
    ensure(report.decayed >= 1 && report.archived >= 1, || {
        format!("maintenance report {report:?}")
    })?;
    let all = m.list(&super::including_archived()).await?;
    let stale = all.iter().find(|e| e.name == "stale");
    ensure(stale.is_some_and(|e| e.archived && e.weight < 1.0), || {
        format!("stale entry after maintenance: {stale:?}")
    })?;
    let active = m.list(&ListRequest::all()).await?.len();
    ensure(active == report.active, || {
        format!("{active} active, report says {}", report.active)
    })
}
