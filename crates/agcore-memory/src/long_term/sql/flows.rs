//! The writes of long-term memory as every SQL driver runs them inside one
//! transaction, over its [`LongTermRows`]: the field rules are those of
//! [`apply`](super::super::apply) and [`upkeep`](super::super::upkeep).

use chrono::{DateTime, Utc};

use super::super::apply::{apply_update, apply_use, merge_duplicate, new_entry};
use super::super::backend::{
    HistoryReason, ListOrder, ListRequest, MaintenanceReport, SaveOutcome, UsageRecord,
};
use super::super::changes::{MemoryUpdate, NewMemory};
use super::super::dedupe::Duplicate;
use super::super::entry::MemoryEntry;
use super::super::maintain::supersede_update;
use super::super::normalize::content_key;
use super::super::scope::MemoryScope;
use super::super::upkeep::{age_counted, used_ids};
use super::super::weights::WeightRules;
use super::rows::LongTermRows;
use super::{entries, statements};
use crate::MemoryError;

/// [`LongTermBackend::save`](super::super::LongTermBackend::save): merges
/// `new` into the entry of `scope` with its content key (locked), else
/// inserts it. Twice at most: a concurrent save of the same text may insert
/// it between the lookup and the insert; then it is merged into that entry.
///
/// # Errors
/// The driver's error; a storage error when the entry kept moving.
pub async fn save<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    new: NewMemory,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<SaveOutcome, R::Error> {
    let scope_id = rows.scope_id(scope).await?;
    let key = content_key(&new.content);
    for _ in 0..2 {
        if let Some(id) = rows.id_by_key(scope, &key).await?
            && let Some(mut entry) = entries::load(rows, scope, id, true).await?
        {
            merge_duplicate(&mut entry, new, rules, now);
            rows.store(scope, &entry, true).await?;
            let created = false;
            return Ok(SaveOutcome { entry, created });
        }
        let mut entry = new_entry(scope, new.clone(), rules, now);
        if let Some(id) = rows.insert(scope_id, &entry).await? {
            entry.id = id;
            let created = true;
            return Ok(SaveOutcome { entry, created });
        }
    }
    Err(MemoryError::Storage(
        "long-term memory: a concurrent save kept moving the entry; retry".into(),
    )
    .into())
}

/// [`LongTermBackend::update`](super::super::LongTermBackend::update):
/// applies `update` to entry `id` (locked), refusing content another entry
/// of the scope has; a content change adds a history row with `reason`.
///
/// # Errors
/// [`MemoryError::NotFound`], [`MemoryError::AlreadyExists`], an invalid
/// update, or the driver's error.
pub async fn update<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    (id, update, reason): (i64, MemoryUpdate, HistoryReason),
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<MemoryEntry, R::Error> {
    let mut entry = entries::load(rows, scope, id, true)
        .await?
        .ok_or_else(|| MemoryError::NotFound(format!("memory {id}")))?;
    let old = apply_update(&mut entry, update, rules, now)?;
    let key = content_key(&entry.content);
    if rows
        .id_by_key(scope, &key)
        .await?
        .is_some_and(|other| other != id)
    {
        return Err(MemoryError::AlreadyExists(format!(
            "another memory of this scope already has this content (memory {id} unchanged)"
        ))
        .into());
    }
    if let Some((name, content)) = &old {
        statements::add_history(rows, scope, (id, name, content), reason, now).await?;
    }
    rows.store(scope, &entry, true).await?;
    Ok(entry)
}

/// [`LongTermBackend::delete`](super::super::LongTermBackend::delete):
/// deletes entry `id` (locked), its text kept in the history; `false` when
/// the scope has no such entry.
///
/// # Errors
/// The driver's error.
pub async fn delete<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    id: i64,
    now: DateTime<Utc>,
) -> Result<bool, R::Error> {
    let Some(entry) = entries::load(rows, scope, id, true).await? else {
        return Ok(false);
    };
    let old = (id, entry.name.as_str(), entry.content.as_str());
    statements::add_history(rows, scope, old, HistoryReason::Delete, now).await?;
    rows.remove(id).await?;
    Ok(true)
}

/// [`LongTermBackend::supersede_duplicates`](super::super::LongTermBackend::supersede_duplicates)
/// in the caller's transaction: each entry `d.superseded` of `scope` still
/// there gets [`supersede_update`] as an [`update`] with reason
/// [`HistoryReason::Supersede`]; returns how many. For a driver that
/// archives them in one write (SQLite); the others use the trait's default.
///
/// # Errors
/// As [`update`].
pub async fn supersede_duplicates<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    duplicates: &[Duplicate],
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<usize, R::Error> {
    let mut done = 0;
    for duplicate in duplicates {
        let id = duplicate.superseded;
        let Some(entry) = entries::load(rows, scope, id, true).await? else {
            continue;
        };
        let change = (
            id,
            supersede_update(&entry, duplicate.kept),
            HistoryReason::Supersede,
        );
        update(rows, scope, change, rules, now).await?;
        done += 1;
    }
    Ok(done)
}

/// [`LongTermBackend::record_use`](super::super::LongTermBackend::record_use):
/// each used entry of `scope` ([`used_ids`], locked in that order) gets
/// its use applied and a usage-log row; returns how many were updated.
///
/// # Errors
/// The driver's error.
pub async fn record_use<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    record: &UsageRecord,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<usize, R::Error> {
    let mut updated = 0;
    for id in used_ids(record) {
        let Some(mut entry) = entries::load(rows, scope, id, true).await? else {
            continue;
        };
        apply_use(&mut entry, record.referenced, rules, now);
        rows.store(scope, &entry, false).await?;
        statements::log_use(rows, id, record, now).await?;
        updated += 1;
    }
    Ok(updated)
}

/// [`LongTermBackend::maintenance`](super::super::LongTermBackend::maintenance):
/// ages every active entry of `scope` (locked, oldest first;
/// [`age_counted`]), then purges the buffer turns applied before
/// `purge_before`.
///
/// # Errors
/// The driver's error.
pub async fn maintenance<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport, R::Error> {
    let request = ListRequest::all().order(ListOrder::Created);
    let active = entries::list(rows, scope, &request, true).await?;
    let mut report = MaintenanceReport::default();
    for mut entry in active {
        if age_counted(&mut entry, rules, now, &mut report) {
            rows.store(scope, &entry, false).await?;
        }
    }
    report.buffer_purged = statements::purge_buffer(rows, scope, purge_before).await?;
    Ok(report)
}

/// [`LongTermBackend::import_entries`](super::super::LongTermBackend::import_entries):
/// inserts `entries` (ids reassigned, every other column kept); an entry
/// whose content key is taken in its scope is skipped and reported with
/// the stored entry.
///
/// # Errors
/// A storage error when an entry was saved concurrently (nothing is to be
/// committed then), an entry with an invalid scope, or the driver's error.
pub async fn import<R: LongTermRows + ?Sized>(
    rows: &mut R,
    entries: Vec<MemoryEntry>,
) -> Result<Vec<SaveOutcome>, R::Error> {
    let mut outcomes = Vec::with_capacity(entries.len());
    for mut entry in entries {
        let scope = entry.scope()?;
        let scope_id = rows.scope_id(&scope).await?;
        let existing = find_by_key(rows, &scope, &content_key(&entry.content)).await?;
        if let Some(existing) = existing {
            let (entry, created) = (existing, false);
            outcomes.push(SaveOutcome { entry, created });
            continue;
        }
        let Some(id) = rows.insert(scope_id, &entry).await? else {
            return Err(MemoryError::Storage(
                "long-term import: an entry was saved concurrently; nothing imported, retry".into(),
            )
            .into());
        };
        entry.id = id;
        outcomes.push(SaveOutcome {
            entry,
            created: true,
        });
    }
    Ok(outcomes)
}

/// [`LongTermBackend::find_by_key`](super::super::LongTermBackend::find_by_key):
/// the entry of `scope` with content key `key`, unlocked.
///
/// # Errors
/// The driver's error.
pub async fn find_by_key<R: LongTermRows + ?Sized>(
    rows: &mut R,
    scope: &MemoryScope,
    key: &str,
) -> Result<Option<MemoryEntry>, R::Error> {
    match rows.id_by_key(scope, key).await? {
        Some(id) => entries::load(rows, scope, id, false).await,
        None => Ok(None),
    }
}
