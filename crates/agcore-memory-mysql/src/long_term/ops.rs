//! The backend's entry operations on one connection (save, update, delete,
//! history, list); each write is one transaction and every statement names
//! the scope. Usage feedback and upkeep live in `upkeep`.

use agcore_memory::MemoryError;
use agcore_memory::long_term::apply::{apply_update, merge_duplicate, new_entry};
use agcore_memory::long_term::{
    ArchivedFilter, HistoryEntry, HistoryReason, ListRequest, MemoryEntry, MemoryScope,
    MemoryUpdate, NewMemory, SaveOutcome, WeightRules,
};
use chrono::{DateTime, Utc};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, TxOpts, Value};

use super::df;
use super::rows::{self, ENTRY_COLUMNS, entry_from_row};
use super::scopes::{self, scope_params};
use super::seen::Seen;
use crate::error::Result;
use crate::row::{from_micros, micros, take, text};

async fn add_history(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    id: i64,
    (name, content): (&str, &str),
    reason: HistoryReason,
    now: DateTime<Utc>,
) -> Result<()> {
    let [agent, user] = scope_params(scope);
    conn.exec_drop(
        "INSERT INTO agcore_lt_history (memory_id, agent_name, user_id, name, content, reason, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
        Params::Positional(vec![
            Value::Int(id),
            agent,
            user,
            Value::from(name.as_bytes()),
            Value::from(content.as_bytes()),
            Value::from(reason.as_str()),
            Value::Int(micros(now)),
        ]),
    )
    .await?;
    Ok(())
}

pub(crate) async fn save(
    conn: &mut Conn,
    known: &Seen,
    scope: &MemoryScope,
    new: NewMemory,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<SaveOutcome> {
    // The scope row and the rows of the text's new words are made first,
    // each committed at once: the transaction below then locks no gaps.
    let scope_id = known.scope_id(conn, scope).await?;
    let fresh = new_entry(scope, new.clone(), rules, now);
    let (words, _) = rows::analyze_text(&fresh.search_text(), scope_id);
    df::create_missing(conn, known, &words).await?;
    let mut tx = conn.start_transaction(TxOpts::default()).await?;
    // Twice at most: a concurrent save of the same text may insert it
    // between our lookup and our insert; then we merge into that entry.
    for _ in 0..2 {
        if let Some(id) = rows::id_by_content(&mut tx, scope, &new.content).await?
            && let Some(mut entry) = rows::load(&mut tx, scope, id, true).await?
        {
            merge_duplicate(&mut entry, new, rules, now);
            rows::store(&mut tx, &entry).await?;
            tx.commit().await?;
            return Ok(SaveOutcome {
                entry,
                created: false,
            });
        }
        let mut entry = fresh.clone();
        if let Some(id) = rows::insert(&mut tx, scope_id, &entry).await? {
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
    conn: &mut Conn,
    known: &Seen,
    scope: &MemoryScope,
    (id, update, reason): (i64, MemoryUpdate, HistoryReason),
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<MemoryEntry> {
    // The rows of the new text's words first (see `save`).
    let text: Vec<&str> = [&update.name, &update.content, &update.description]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    if !text.is_empty()
        && let Some(scope_id) = scopes::existing_scope_id(conn, scope).await?
    {
        let (words, _) = rows::analyze_text(&text.join(" "), scope_id);
        df::create_missing(conn, known, &words).await?;
    }
    let mut tx = conn.start_transaction(TxOpts::default()).await?;
    let mut entry = rows::load(&mut tx, scope, id, true)
        .await?
        .ok_or_else(|| MemoryError::NotFound(format!("memory {id}")))?;
    let old = apply_update(&mut entry, update, rules, now)?;
    if rows::id_by_content(&mut tx, scope, &entry.content)
        .await?
        .is_some_and(|other| other != id)
    {
        return Err(MemoryError::AlreadyExists(format!(
            "another memory of this scope already has this content (memory {id} unchanged)"
        ))
        .into());
    }
    if let Some((name, content)) = &old {
        add_history(&mut tx, scope, id, (name, content), reason, now).await?;
    }
    rows::store(&mut tx, &entry).await?;
    tx.commit().await?;
    Ok(entry)
}

pub(crate) async fn delete(
    conn: &mut Conn,
    scope: &MemoryScope,
    id: i64,
    now: DateTime<Utc>,
) -> Result<bool> {
    let mut tx = conn.start_transaction(TxOpts::default()).await?;
    let Some(entry) = rows::load(&mut tx, scope, id, true).await? else {
        return Ok(false);
    };
    add_history(
        &mut tx,
        scope,
        id,
        (&entry.name, &entry.content),
        HistoryReason::Delete,
        now,
    )
    .await?;
    let old: Option<(i64, i64, String)> = tx
        .exec_first(
            "SELECT scope_id, len, terms FROM agcore_lt_entries WHERE id = ?",
            (id,),
        )
        .await?;
    tx.exec_drop("DELETE FROM agcore_lt_entries WHERE id = ?", (id,))
        .await?;
    if let Some((scope_id, len, terms)) = old {
        df::account(&mut tx, scope_id, (-1, -len), (&terms, "")).await?;
    }
    tx.commit().await?;
    Ok(true)
}

pub(crate) async fn history(
    conn: &mut Conn,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<HistoryEntry>> {
    let [agent, user] = scope_params(scope);
    let found: Vec<Row> = conn
        .exec(
            "SELECT name, content, reason, recorded_at FROM agcore_lt_history
             WHERE memory_id = ? AND agent_name = ? AND user_id = ? ORDER BY id",
            Params::Positional(vec![Value::Int(id), agent, user]),
        )
        .await?;
    found
        .into_iter()
        .map(|mut row| {
            let reason: String = take(&mut row, 2)?;
            Ok(HistoryEntry {
                memory_id: id,
                name: text(&mut row, 0)?,
                content: text(&mut row, 1)?,
                reason: HistoryReason::parse(&reason)?,
                recorded_at: from_micros(take(&mut row, 3)?)?,
            })
        })
        .collect()
}

/// The `archived` condition of `filter` on alias `m`.
pub(crate) fn archived_sql(filter: ArchivedFilter) -> &'static str {
    match filter {
        ArchivedFilter::Include => "TRUE",
        ArchivedFilter::Only => "m.archived",
        _ => "NOT m.archived",
    }
}

pub(crate) async fn list(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    request: &ListRequest,
    lock: bool,
) -> Result<Vec<MemoryEntry>> {
    let order = request.order.sql_order_by();
    let limit = request
        .limit
        .map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX));
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m WHERE m.agent_name = ? AND m.user_id = ?
         AND (? IS NULL OR m.memory_type = ?) AND (? IS NULL OR m.weight >= ?) AND {}
         ORDER BY {order} LIMIT ?{}",
        archived_sql(request.archived),
        if lock { " FOR UPDATE" } else { "" }
    );
    let ty = request
        .memory_type
        .map_or(Value::NULL, |t| Value::from(t.as_str()));
    let min = request.min_weight.map_or(Value::NULL, Value::Double);
    let [agent, user] = scope_params(scope);
    let found: Vec<Row> = conn
        .exec(
            sql,
            Params::Positional(vec![
                agent,
                user,
                ty.clone(),
                ty,
                min.clone(),
                min,
                Value::Int(limit),
            ]),
        )
        .await?;
    found
        .into_iter()
        .map(|mut row| entry_from_row(&mut row))
        .collect()
}
