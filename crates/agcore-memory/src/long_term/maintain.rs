//! One maintenance run of a scope on top of any [`LongTermBackend`]: the
//! backend's age decay, archiving and buffer purge, then the dedupe of near
//! duplicates ([`near_duplicates`]), and the dry run of both
//! (`docs/memory.md`, *Maintenance*).

use chrono::{DateTime, Utc};

use super::apply::apply_age;
use super::backend::{ListRequest, LongTermBackend, MaintenanceReport};
use super::changes::MemoryUpdate;
use super::dedupe::{DedupeMemo, TermSet, near_duplicates, near_duplicates_among};
use super::entry::MemoryEntry;
use super::scope::MemoryScope;
use super::weights::WeightRules;
use crate::MemoryError;

/// Metadata key naming the entry that superseded a near duplicate.
pub const SUPERSEDED_BY_KEY: &str = "superseded_by";

/// What a maintenance run does besides the weight rules.
#[derive(Debug, Clone)]
pub(crate) struct Upkeep {
    /// Applied buffer turns older than this are purged.
    pub buffer_retention: chrono::Duration,
    /// The Jaccard threshold of near duplicates; `None`: no dedupe.
    pub dedupe: Option<f64>,
    /// What the last dedupe of each scope kept (incremental runs).
    pub memo: DedupeMemo,
}

/// Maintenance of `scope` at `now`: [`LongTermBackend::maintenance`], then
/// the dedupe when `upkeep.dedupe` is set.
///
/// # Errors
/// [`MemoryError::Storage`] (what was done before the failure stays done).
pub(crate) async fn run(
    backend: &dyn LongTermBackend,
    scope: &MemoryScope,
    rules: &WeightRules,
    upkeep: &Upkeep,
    now: DateTime<Utc>,
) -> Result<MaintenanceReport, MemoryError> {
    let mut report = backend
        .maintenance(scope, rules, now, now - upkeep.buffer_retention)
        .await?;
    if let Some(threshold) = upkeep.dedupe {
        let n = dedupe(backend, scope, rules, (threshold, &upkeep.memo), now).await?;
        report.deduplicated = n;
        report.active = report.active.saturating_sub(n);
    }
    Ok(report)
}

/// Archives every near duplicate among the active entries of `scope`,
/// superseded by the entry it duplicates: its title and text go to its
/// history with reason [`HistoryReason::Supersede`](super::HistoryReason::Supersede), its metadata gets
/// [`SUPERSEDED_BY_KEY`] = the kept entry's id. Nothing is deleted; the kept
/// entry already has the larger weight (entries are ranked by weight).
/// Returns how many were archived. Incremental: entries the last run of
/// the scope kept unchanged (`memo`) are only compared with the others.
async fn dedupe(
    backend: &dyn LongTermBackend,
    scope: &MemoryScope,
    rules: &WeightRules,
    (threshold, memo): (f64, &DedupeMemo),
    now: DateTime<Utc>,
) -> Result<usize, MemoryError> {
    let sets = backend.dedupe_terms(scope).await?;
    let fresh: std::collections::HashMap<i64, bool> = sets
        .iter()
        .map(|s| s.id)
        .zip(memo.fresh(scope, threshold, &sets))
        .collect();
    let found = near_duplicates_among(&sets, threshold, &|s| {
        fresh.get(&s.id).copied().unwrap_or(true)
    });
    let done = backend
        .supersede_duplicates(scope, &found, rules, now)
        .await?;
    memo.record(scope, threshold, &sets, &found);
    Ok(done)
}

/// The update that archives `entry` as a near duplicate of the entry
/// `kept`: archived, metadata [`SUPERSEDED_BY_KEY`] = `kept`, title and text
/// recorded in its history. Backends apply it with history reason
/// [`HistoryReason::Supersede`](super::HistoryReason::Supersede)
/// ([`LongTermBackend::supersede_duplicates`]).
pub fn supersede_update(entry: &MemoryEntry, kept: i64) -> MemoryUpdate {
    let mut metadata = entry.metadata.clone();
    metadata.insert(SUPERSEDED_BY_KEY.into(), kept.into());
    MemoryUpdate::new()
        .archived(true)
        .metadata(metadata)
        .record_history()
}

/// What [`run`] would do to `scope` at `now`, without writing: decayed,
/// archived, deduplicated and active counted on a copy of the active
/// entries. `buffer_purged` stays 0 (the backend contract has no count of
/// purgeable turns).
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) async fn preview(
    backend: &dyn LongTermBackend,
    scope: &MemoryScope,
    rules: &WeightRules,
    upkeep: &Upkeep,
    now: DateTime<Utc>,
) -> Result<MaintenanceReport, MemoryError> {
    let mut entries = backend.list(scope, &ListRequest::all()).await?;
    let mut report = MaintenanceReport::default();
    for entry in &mut entries {
        let (decayed, archived) = apply_age(entry, rules, now);
        report.decayed += usize::from(decayed);
        report.archived += usize::from(archived);
    }
    entries.retain(|e| !e.archived);
    if let Some(threshold) = upkeep.dedupe {
        let sets: Vec<TermSet> = entries.iter().map(TermSet::of).collect();
        report.deduplicated = near_duplicates(&sets, threshold).len();
    }
    report.active = entries.len() - report.deduplicated;
    Ok(report)
}
