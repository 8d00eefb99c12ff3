//! Maintenance beyond weights: the dedupe of near duplicates.

use crate::{CheckResult, ensure};
use agcore_memory::long_term::{
    HistoryReason, ListRequest, LongTermMemory, MemoryType, NewMemory, SUPERSEDED_BY_KEY,
};

/// Maintenance supersedes near duplicates (the default Jaccard threshold
/// 0.9 over indexed terms): of two active entries of one type whose texts
/// differ only in case, punctuation and inflection, the lighter one is
/// archived — never deleted — with its text in the history (reason
/// `supersede`) and `superseded_by` naming the kept entry in its metadata;
/// the report counts it under `deduplicated` and not under `active`. An
/// entry of another type, a different text and the same text in another
/// scope stay active; a second run finds nothing more.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_maintenance_dedupe(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let other = memory.scope("agent", "u2")?;
    let text = "Alice prefers green tea in the morning";
    let save = |t: MemoryType, content: &str, weight: f64| {
        NewMemory::new(t, "", content.to_owned()).with_weight(weight)
    };
    let light = m.save(save(MemoryType::User, text, 1.0)).await?.entry;
    let heavy = m
        .save(save(
            MemoryType::User,
            "alice PREFERS green teas, in the morning!",
            2.0,
        ))
        .await?
        .entry;
    let project = m.save(save(MemoryType::Project, text, 1.0)).await;
    // The same text is one entry per scope, whatever its type: the project
    // save merges into `light` (and makes it a project memory).
    let project = project?.entry;
    let coffee = m
        .save(save(
            MemoryType::User,
            "Alice drinks black coffee at night",
            1.0,
        ))
        .await?
        .entry;
    let elsewhere = other.save(save(MemoryType::User, text, 1.0)).await?.entry;
    ensure(project.id == light.id, || {
        "the same text saved twice must be one entry".into()
    })?;
    // `light` is now a project memory: no duplicate of `heavy` (a user memory).
    let report = m.maintenance().await?;
    ensure(report.deduplicated == 0 && report.active == 3, || {
        format!("entries of different types are not duplicates: {report:?}")
    })?;
    let reset = agcore_memory::long_term::MemoryUpdate::new().memory_type(MemoryType::User);
    m.update(light.id, reset).await?;
    let report = m.maintenance().await?;
    ensure(report.deduplicated == 1 && report.active == 2, || {
        format!("maintenance report {report:?}: want one near duplicate superseded, 2 active")
    })?;
    let Some(superseded) = m.get(light.id).await? else {
        return ensure(false, || {
            "a superseded duplicate must be archived, not deleted".into()
        });
    };
    ensure(superseded.archived, || {
        "the lighter duplicate must be archived".into()
    })?;
    let by = superseded
        .metadata
        .get(SUPERSEDED_BY_KEY)
        .and_then(|v| v.as_i64());
    ensure(by == Some(heavy.id), || {
        format!("metadata {SUPERSEDED_BY_KEY} = {by:?}, want {}", heavy.id)
    })?;
    let history = m.history(light.id).await?;
    ensure(
        history
            .last()
            .is_some_and(|h| h.reason == HistoryReason::Supersede && h.content == text),
        || format!("history of the superseded entry: {history:?}"),
    )?;
    let active: Vec<i64> = m
        .list(&ListRequest::all())
        .await?
        .iter()
        .map(|e| e.id)
        .collect();
    ensure(
        active.contains(&heavy.id) && active.contains(&coffee.id) && active.len() == 2,
        || format!("active after dedupe: {active:?}"),
    )?;
    ensure(
        other.get(elsewhere.id).await?.is_some_and(|e| !e.archived),
        || "the same text in another scope must stay active".into(),
    )?;
    let again = m.maintenance().await?;
    ensure(again.deduplicated == 0 && again.active == 2, || {
        format!("a second run must find nothing more: {again:?}")
    })
}
