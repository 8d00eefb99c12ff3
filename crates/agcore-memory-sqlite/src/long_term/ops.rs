//! The backend's writes as synchronous functions on the connection, each in
//! one transaction (the reads are in [`reads`](super::reads)). Every
//! statement names the scope in its `WHERE` clause.

use crate::error::Result;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::rows;
use super::time::format_time;
use agcore_memory::MemoryError;
use agcore_memory::long_term::WeightRules;
use agcore_memory::long_term::apply::{apply_update, merge_duplicate, new_entry};
#[cfg(feature = "testkit")]
use agcore_memory::long_term::upkeep::age_counted;
use agcore_memory::long_term::upkeep::used_ids;
use agcore_memory::long_term::{Duplicate, content_key, supersede_update};
use agcore_memory::long_term::{HistoryReason, SaveOutcome, UsageRecord};
#[cfg(feature = "testkit")]
use agcore_memory::long_term::{ListOrder, ListRequest, MaintenanceReport};
use agcore_memory::long_term::{MemoryEntry, MemoryScope, MemoryUpdate, NewMemory};

fn add_history(
    conn: &Connection,
    scope: &MemoryScope,
    id: i64,
    name: &str,
    content: &str,
    reason: HistoryReason,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO memory_history (memory_id, agent_name, user_id, name, content, reason, recorded_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![id, scope.agent(), scope.user(), name, content, reason.as_str(), format_time(now)])?;
    Ok(())
}

pub(crate) fn save(
    conn: &mut Connection,
    scope: &MemoryScope,
    new: NewMemory,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<SaveOutcome> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let key = content_key(&new.content);
    let existing = match rows::id_by_key(&tx, scope, &key)? {
        Some(id) => rows::load(&tx, scope, id)?,
        None => None,
    };
    let outcome = if let Some(mut entry) = existing {
        merge_duplicate(&mut entry, new, rules, now);
        rows::store(&tx, &entry)?;
        SaveOutcome {
            entry,
            created: false,
        }
    } else {
        let mut entry = new_entry(scope, new, rules, now);
        entry.id = rows::insert(&tx, &entry)?;
        SaveOutcome {
            entry,
            created: true,
        }
    };
    tx.commit()?;
    Ok(outcome)
}

pub(crate) fn update(
    conn: &mut Connection,
    scope: &MemoryScope,
    id: i64,
    update: MemoryUpdate,
    reason: HistoryReason,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<MemoryEntry> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let entry = update_in(&tx, scope, id, update, reason, rules, now)?
        .ok_or_else(|| MemoryError::NotFound(format!("memory {id}")))?;
    tx.commit()?;
    Ok(entry)
}

/// [`update`] inside the caller's transaction; `None` when `id` is not in
/// the scope.
fn update_in(
    tx: &Connection,
    scope: &MemoryScope,
    id: i64,
    update: MemoryUpdate,
    reason: HistoryReason,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<Option<MemoryEntry>> {
    let Some(mut entry) = rows::load(tx, scope, id)? else {
        return Ok(None);
    };
    let old = apply_update(&mut entry, update, rules, now)?;
    let key = content_key(&entry.content);
    if rows::id_by_key(tx, scope, &key)?.is_some_and(|other| other != id) {
        return Err(MemoryError::AlreadyExists(format!(
            "another memory of this scope already has this content (memory {id} unchanged)"
        ))
        .into());
    }
    if let Some((name, content)) = old {
        add_history(tx, scope, id, &name, &content, reason, now)?;
    }
    rows::store(tx, &entry)?;
    Ok(Some(entry))
}

/// [`LongTermBackend::supersede_duplicates`](agcore_memory::long_term::LongTermBackend::supersede_duplicates)
/// in one transaction; entries no longer in the scope are skipped.
pub(crate) fn supersede_duplicates(
    conn: &mut Connection,
    scope: &MemoryScope,
    duplicates: &[Duplicate],
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<usize> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut done = 0;
    for duplicate in duplicates {
        let id = duplicate.superseded;
        let Some(entry) = rows::load(&tx, scope, id)? else {
            continue;
        };
        let update = supersede_update(&entry, duplicate.kept);
        let reason = HistoryReason::Supersede;
        if update_in(&tx, scope, id, update, reason, rules, now)?.is_some() {
            done += 1;
        }
    }
    tx.commit()?;
    Ok(done)
}

pub(crate) fn delete(
    conn: &mut Connection,
    scope: &MemoryScope,
    id: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(entry) = rows::load(&tx, scope, id)? else {
        return Ok(false);
    };
    add_history(
        &tx,
        scope,
        id,
        &entry.name,
        &entry.content,
        HistoryReason::Delete,
        now,
    )?;
    let terms: Option<String> = tx
        .query_row(
            "DELETE FROM memory WHERE id = ?1 AND agent_name = ?2 AND user_id = ?3 RETURNING terms",
            params![id, scope.agent(), scope.user()],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(terms) = terms {
        rows::unindex(&tx, scope, id, &terms)?;
    }
    tx.commit()?;
    Ok(true)
}

pub(crate) fn record_use(
    conn: &mut Connection,
    scope: &MemoryScope,
    record: &UsageRecord,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<usize> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut updated = 0;
    let at = format_time(now);
    for id in used_ids(record) {
        // Only the columns `apply_use` changes: no decode, no re-analysis.
        let weight: Option<f64> = tx
            .prepare_cached(
                "SELECT weight FROM memory WHERE id = ?1 AND agent_name = ?2 AND user_id = ?3",
            )?
            .query_row(params![id, scope.agent(), scope.user()], |r| r.get(0))
            .optional()?;
        let Some(weight) = weight else {
            continue;
        };
        tx.prepare_cached(
            "UPDATE memory SET weight = ?4, weight_updated_at = ?5, last_used_at = ?5, \
             use_count = use_count + 1 WHERE id = ?1 AND agent_name = ?2 AND user_id = ?3",
        )?
        .execute(params![
            id,
            scope.agent(),
            scope.user(),
            rules.after_use(weight, record.referenced),
            at
        ])?;
        tx.prepare_cached(
            "INSERT INTO memory_usage_log (memory_id, session_id, query, was_referenced, used_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![id, record.session_id, record.query, i64::from(record.referenced), at])?;
        updated += 1;
    }
    tx.commit()?;
    Ok(updated)
}

pub(crate) fn archive_below(
    conn: &Connection,
    scope: &MemoryScope,
    threshold: f64,
    now: DateTime<Utc>,
) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE memory SET archived = 1, updated_at = ?4 \
         WHERE agent_name = ?1 AND user_id = ?2 AND archived = 0 AND weight < ?3",
        params![scope.agent(), scope.user(), threshold, format_time(now)],
    )?)
}

/// The row-by-row maintenance of earlier releases (every active entry
/// loaded, aged in Rust and stored back with its terms re-encoded): the
/// reference the set-based [`super::upkeep::maintenance`] is checked and
/// measured against. Compiled with the `testkit` feature only.
#[cfg(feature = "testkit")]
pub(crate) fn maintenance_row_by_row(
    conn: &mut Connection,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let active = super::reads::list(&tx, scope, &ListRequest::all().order(ListOrder::Created))?;
    let mut report = MaintenanceReport::default();
    for mut entry in active {
        if age_counted(&mut entry, rules, now, &mut report) {
            rows::store(&tx, &entry)?;
        }
    }
    report.buffer_purged = tx.execute(
        "DELETE FROM dialogue_buffer WHERE agent_name = ?1 AND user_id = ?2 \
         AND applied_at IS NOT NULL AND applied_at < ?3",
        params![scope.agent(), scope.user(), format_time(purge_before)],
    )?;
    tx.commit()?;
    Ok(report)
}
