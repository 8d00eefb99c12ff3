//! Usage feedback and upkeep of one scope's entries: recording retrievals,
//! archiving low-weight entries, and the periodic decay/archive/purge pass.
//! Each write is one transaction and every statement names the scope.

use agcore_memory::long_term::apply::apply_use;
use agcore_memory::long_term::upkeep::{age_counted, used_ids};
use agcore_memory::long_term::{
    ListOrder, ListRequest, MaintenanceReport, MemoryScope, UsageRecord, WeightRules,
};
use chrono::{DateTime, Utc};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, TxOpts, Value};

use super::ops::list;
use super::rows;
use super::scopes::scope_params;
use crate::error::Result;
use crate::row::micros;

pub(crate) async fn record_use(
    conn: &mut Conn,
    scope: &MemoryScope,
    record: &UsageRecord,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<usize> {
    let mut tx = conn.start_transaction(TxOpts::default()).await?;
    let mut updated = 0;
    for id in used_ids(record) {
        let Some(mut entry) = rows::load(&mut tx, scope, id, true).await? else {
            continue;
        };
        apply_use(&mut entry, record.referenced, rules, now);
        rows::store(&mut tx, &entry).await?;
        tx.exec_drop(
            "INSERT INTO agcore_lt_usage_log (memory_id, session_id, query, was_referenced, used_at)
             VALUES (?, ?, ?, ?, ?)",
            Params::Positional(vec![
                Value::Int(id),
                Value::from(record.session_id.as_bytes()),
                Value::from(record.query.as_bytes()),
                Value::Int(i64::from(record.referenced)),
                Value::Int(micros(now)),
            ]),
        )
        .await?;
        updated += 1;
    }
    tx.commit().await?;
    Ok(updated)
}

pub(crate) async fn archive_below(
    conn: &mut Conn,
    scope: &MemoryScope,
    threshold: f64,
    now: DateTime<Utc>,
) -> Result<usize> {
    let [agent, user] = scope_params(scope);
    conn.exec_drop(
        "UPDATE agcore_lt_entries SET archived = TRUE, updated_at = ?
         WHERE agent_name = ? AND user_id = ? AND NOT archived AND weight < ?",
        Params::Positional(vec![
            Value::Int(micros(now)),
            agent,
            user,
            Value::Double(threshold),
        ]),
    )
    .await?;
    Ok(usize::try_from(conn.affected_rows()).unwrap_or(usize::MAX))
}

pub(crate) async fn maintenance(
    conn: &mut Conn,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport> {
    let mut tx = conn.start_transaction(TxOpts::default()).await?;
    let active = list(
        &mut tx,
        scope,
        &ListRequest::all().order(ListOrder::Created),
        true,
    )
    .await?;
    let mut report = MaintenanceReport::default();
    for mut entry in active {
        if age_counted(&mut entry, rules, now, &mut report) {
            rows::store(&mut tx, &entry).await?;
        }
    }
    let [agent, user] = scope_params(scope);
    tx.exec_drop(
        "DELETE FROM agcore_lt_buffer WHERE agent_name = ? AND user_id = ?
         AND applied_at IS NOT NULL AND applied_at < ?",
        Params::Positional(vec![agent, user, Value::Int(micros(purge_before))]),
    )
    .await?;
    report.buffer_purged = usize::try_from(tx.affected_rows()).unwrap_or(usize::MAX);
    tx.commit().await?;
    Ok(report)
}
