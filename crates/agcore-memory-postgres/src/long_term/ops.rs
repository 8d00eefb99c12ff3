//! The backend's operations on one connection; each write is one
//! transaction and every statement names the scope.

use agcore_memory::MemoryError;
use agcore_memory::long_term::apply::{apply_update, apply_use, merge_duplicate, new_entry};
use agcore_memory::long_term::upkeep::{age_counted, used_ids};
use agcore_memory::long_term::{
    ArchivedFilter, HistoryEntry, HistoryReason, ListOrder, ListRequest, MaintenanceReport,
    MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, UsageRecord, WeightRules,
    content_key,
};
use chrono::{DateTime, Utc};
use deadpool_postgres::Client;
use deadpool_postgres::GenericClient;

use super::rows::{self, ENTRY_COLUMNS, entry_from_row};
use crate::error::Result;

async fn add_history(
    client: &impl GenericClient,
    scope: &MemoryScope,
    id: i64,
    (name, content): (&str, &str),
    reason: HistoryReason,
    now: DateTime<Utc>,
) -> Result<()> {
    client
        .execute(
            "INSERT INTO agcore_lt_history (memory_id, agent_name, user_id, name, content, reason, recorded_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[&id, &scope.agent(), &scope.user(), &name, &content, &reason.as_str(), &now],
        )
        .await?;
    Ok(())
}

pub(crate) async fn save(
    client: &mut Client,
    scope: &MemoryScope,
    new: NewMemory,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<SaveOutcome> {
    let tx = client.transaction().await?;
    let scope_id = rows::scope_id(&tx, scope).await?;
    let key = content_key(&new.content);
    // Twice at most: a concurrent save of the same text may insert it
    // between our lookup and our insert; then we merge into that entry.
    for _ in 0..2 {
        if let Some(id) = rows::id_by_key(&tx, scope, &key).await?
            && let Some(mut entry) = rows::load(&tx, scope, id, true).await?
        {
            merge_duplicate(&mut entry, new, rules, now);
            rows::store(&tx, scope_id, &entry, true).await?;
            tx.commit().await?;
            return Ok(SaveOutcome {
                entry,
                created: false,
            });
        }
        let mut entry = new_entry(scope, new.clone(), rules, now);
        if let Some(id) = rows::insert(&tx, scope_id, &entry).await? {
            entry.id = id;
            tx.commit().await?;
            return Ok(SaveOutcome {
                entry,
                created: true,
            });
        }
    }
    Err(MemoryError::Storage(
        "long-term memory: a concurrent save kept moving the entry; retry".into(),
    )
    .into())
}

pub(crate) async fn update(
    client: &mut Client,
    scope: &MemoryScope,
    id: i64,
    update: MemoryUpdate,
    reason: HistoryReason,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<MemoryEntry> {
    let tx = client.transaction().await?;
    let mut entry = rows::load(&tx, scope, id, true)
        .await?
        .ok_or_else(|| MemoryError::NotFound(format!("memory {id}")))?;
    let old = apply_update(&mut entry, update, rules, now)?;
    let key = content_key(&entry.content);
    if rows::id_by_key(&tx, scope, &key)
        .await?
        .is_some_and(|other| other != id)
    {
        return Err(MemoryError::AlreadyExists(format!(
            "another memory of this scope already has this content (memory {id} unchanged)"
        ))
        .into());
    }
    if let Some((name, content)) = &old {
        add_history(&tx, scope, id, (name, content), reason, now).await?;
    }
    let scope_id = rows::scope_id(&tx, scope).await?;
    rows::store(&tx, scope_id, &entry, true).await?;
    tx.commit().await?;
    Ok(entry)
}

pub(crate) async fn delete(
    client: &mut Client,
    scope: &MemoryScope,
    id: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    let tx = client.transaction().await?;
    let Some(entry) = rows::load(&tx, scope, id, true).await? else {
        return Ok(false);
    };
    add_history(
        &tx,
        scope,
        id,
        (&entry.name, &entry.content),
        HistoryReason::Delete,
        now,
    )
    .await?;
    let row = tx
        .query_one(
            "DELETE FROM agcore_lt_entries WHERE id = $1 RETURNING scope_id, len",
            &[&id],
        )
        .await?;
    let (scope_id, len): (i64, i32) = (row.try_get(0)?, row.try_get(1)?);
    rows::adjust_scope(&tx, scope_id, -1, -i64::from(len)).await?;
    tx.commit().await?;
    Ok(true)
}

pub(crate) async fn history(
    client: &Client,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<HistoryEntry>> {
    let rows = client
        .query(
            "SELECT name, content, reason, recorded_at FROM agcore_lt_history
             WHERE memory_id = $1 AND agent_name = $2 AND user_id = $3 ORDER BY id",
            &[&id, &scope.agent(), &scope.user()],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let reason: String = row.try_get(2)?;
            Ok(HistoryEntry {
                memory_id: id,
                name: row.try_get(0)?,
                content: row.try_get(1)?,
                reason: HistoryReason::parse(&reason)?,
                recorded_at: row.try_get(3)?,
            })
        })
        .collect()
}

/// The `archived` condition of `filter` on the rows of `alias` (`m`, an
/// entry, or `p`, a posting: both have the column).
pub(crate) fn archived_sql(filter: ArchivedFilter, alias: &str) -> String {
    match filter {
        ArchivedFilter::Include => "TRUE".to_owned(),
        ArchivedFilter::Only => format!("{alias}.archived"),
        _ => format!("NOT {alias}.archived"),
    }
}

pub(crate) async fn list(
    client: &impl GenericClient,
    scope: &MemoryScope,
    request: &ListRequest,
    lock: bool,
) -> Result<Vec<MemoryEntry>> {
    let order = request.order.sql_order_by();
    let limit = request.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m WHERE m.agent_name = $1 AND m.user_id = $2
         AND ($3::text IS NULL OR m.memory_type = $3) AND ($4::float8 IS NULL OR m.weight >= $4) AND {}
         ORDER BY {order} LIMIT $5{}",
        archived_sql(request.archived, "m"),
        if lock { " FOR UPDATE" } else { "" }
    );
    let ty = request.memory_type.map(|t| t.as_str());
    let rows = client
        .query(
            &sql,
            &[
                &scope.agent(),
                &scope.user(),
                &ty,
                &request.min_weight,
                &limit,
            ],
        )
        .await?;
    rows.iter().map(entry_from_row).collect()
}

pub(crate) async fn record_use(
    client: &mut Client,
    scope: &MemoryScope,
    record: &UsageRecord,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<usize> {
    let tx = client.transaction().await?;
    let mut updated = 0;
    for id in used_ids(record) {
        let Some(mut entry) = rows::load(&tx, scope, id, true).await? else {
            continue;
        };
        apply_use(&mut entry, record.referenced, rules, now);
        rows::store(&tx, 0, &entry, false).await?;
        tx.execute(
            "INSERT INTO agcore_lt_usage_log (memory_id, session_id, query, was_referenced, used_at)
             VALUES ($1, $2, $3, $4, $5)",
            &[&id, &record.session_id, &record.query, &record.referenced, &now],
        )
        .await?;
        updated += 1;
    }
    tx.commit().await?;
    Ok(updated)
}

pub(crate) async fn archive_below(
    client: &Client,
    scope: &MemoryScope,
    threshold: f64,
    now: DateTime<Utc>,
) -> Result<usize> {
    let n = client
        .execute(
            "UPDATE agcore_lt_entries SET archived = TRUE, updated_at = $4
             WHERE agent_name = $1 AND user_id = $2 AND NOT archived AND weight < $3",
            &[&scope.agent(), &scope.user(), &threshold, &now],
        )
        .await?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

pub(crate) async fn maintenance(
    client: &mut Client,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport> {
    let tx = client.transaction().await?;
    let active = list(
        &tx,
        scope,
        &ListRequest::all().order(ListOrder::Created),
        true,
    )
    .await?;
    let mut report = MaintenanceReport::default();
    for mut entry in active {
        if age_counted(&mut entry, rules, now, &mut report) {
            rows::store(&tx, 0, &entry, false).await?;
        }
    }
    let purged = tx
        .execute(
            "DELETE FROM agcore_lt_buffer WHERE agent_name = $1 AND user_id = $2
             AND applied_at IS NOT NULL AND applied_at < $3",
            &[&scope.agent(), &scope.user(), &purge_before],
        )
        .await?;
    report.buffer_purged = usize::try_from(purged).unwrap_or(usize::MAX);
    tx.commit().await?;
    Ok(report)
}
