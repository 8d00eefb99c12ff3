//! Set-based maintenance of one scope (`docs/memory.md`, *Maintenance*):
//! one `UPDATE` ages every active entry whose weight would drop by at least
//! [`MIN_DECAY`], one `UPDATE` archives the entries below the threshold, one
//! `DELETE` purges applied buffer turns, in one transaction. Rows are never
//! loaded into Rust, and the search index is untouched (weights and the
//! archive flag are not indexed terms).

use std::cell::RefCell;

use chrono::{DateTime, Utc};
use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, TransactionBehavior, params};

use super::rows::SCOPE_TOKENS;
use super::time::{format_time, parse_time};
use crate::error::{Result, storage};
use agcore_memory::long_term::{
    MIN_DECAY, MaintenanceReport, MemoryScope, MemoryType, TermSet, WeightRules,
};

/// The SQL function `agcore_aged(weight, since)`: the weight aged from the
/// stored time `since` to the run's `now` ([`WeightRules::after_age`], the
/// rule every backend applies). Registered for one run.
const AGED_FN: &str = "agcore_aged";

/// Ages the active entries of scope (`?1`, `?2`) to `?3` (the stored form of
/// `now`): only rows that lose at least `?4`, so frequent runs rewrite nothing.
const DECAY: &str = "UPDATE memory \
     SET weight = agcore_aged(weight, COALESCE(weight_updated_at, updated_at)), \
         weight_updated_at = ?3 \
     WHERE agent_name = ?1 AND user_id = ?2 AND archived = 0 \
       AND weight - agcore_aged(weight, COALESCE(weight_updated_at, updated_at)) >= ?4";

/// Age decay, archiving below `rules.archive_threshold` and the purge of
/// buffer turns applied before `purge_before`, for `scope`, in one
/// transaction.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError::Storage), including a
/// stored time that does not parse.
pub(crate) fn maintenance(
    conn: &mut Connection,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport> {
    register_aged(conn, *rules, now)?;
    let outcome = run(conn, scope, rules, now, purge_before);
    conn.remove_function(AGED_FN, 2)?;
    outcome
}

fn run(
    conn: &mut Connection,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport> {
    let (agent, user, at) = (scope.agent(), scope.user(), format_time(now));
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut report = MaintenanceReport::default();
    report.decayed = tx.execute(DECAY, params![agent, user, at, MIN_DECAY])?;
    report.archived = tx.execute(
        "UPDATE memory SET archived = 1, updated_at = ?4 \
         WHERE agent_name = ?1 AND user_id = ?2 AND archived = 0 AND weight < ?3",
        params![agent, user, rules.archive_threshold, at],
    )?;
    let active: i64 = tx.query_row(
        "SELECT COUNT(*) FROM memory WHERE agent_name = ?1 AND user_id = ?2 AND archived = 0",
        params![agent, user],
        |r| r.get(0),
    )?;
    report.active = usize::try_from(active).unwrap_or(0);
    report.buffer_purged = tx.execute(
        "DELETE FROM dialogue_buffer WHERE agent_name = ?1 AND user_id = ?2 \
         AND applied_at IS NOT NULL AND applied_at < ?3",
        params![agent, user, format_time(purge_before)],
    )?;
    tx.commit()?;
    Ok(report)
}

/// Registers [`AGED_FN`] for `rules` at `now` on `conn`. The function keeps
/// the last time it parsed: after a run every active entry shares that run's
/// `weight_updated_at`, and the `UPDATE` calls it twice per row.
fn register_aged(conn: &Connection, rules: WeightRules, now: DateTime<Utc>) -> Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let last: RefCell<Option<(String, DateTime<Utc>)>> = RefCell::new(None);
    conn.create_scalar_function(AGED_FN, 2, flags, move |ctx| {
        let weight: f64 = ctx.get(0)?;
        let Some(since) = ctx.get_raw(1).as_str_or_null()? else {
            return Ok(rules.clamp(weight));
        };
        let mut last = last.borrow_mut();
        let since = match &*last {
            Some((text, time)) if text == since => *time,
            _ => {
                let time = parse_time(since)
                    .map_err(|e| rusqlite::Error::UserFunctionError(e.to_string().into()))?;
                *last = Some((since.to_owned(), time));
                time
            }
        };
        Ok(rules.after_age(weight, since, now))
    })?;
    Ok(())
}

/// The dedupe view of the active entries of `scope`, from the stored
/// `terms` column (the analyzer terms of the search text after the scope
/// token): no entry is decoded or re-analyzed.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError::Storage).
pub(crate) fn dedupe_terms(conn: &Connection, scope: &MemoryScope) -> Result<Vec<TermSet>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, type, weight, created_at, terms FROM memory \
         WHERE agent_name = ?1 AND user_id = ?2 AND archived = 0",
    )?;
    let mut rows = stmt.query(params![scope.agent(), scope.user()])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let text = |i: usize| -> Result<&str> {
            row.get_ref(i)?
                .as_str()
                .map_err(|e| storage(format!("long-term memory: bad stored column {i}: {e}")))
        };
        let kind = text(1)?;
        let memory_type = MemoryType::parse(kind)
            .map_err(|e| storage(format!("long-term memory: bad stored type: {e}")))?;
        let created_at = parse_time(text(3)?)?;
        let terms = text(4)?
            .split_whitespace()
            .skip(SCOPE_TOKENS)
            .map(str::to_owned)
            .collect();
        out.push(TermSet::new(
            row.get(0)?,
            memory_type,
            row.get(2)?,
            created_at,
            terms,
        ));
    }
    Ok(out)
}
