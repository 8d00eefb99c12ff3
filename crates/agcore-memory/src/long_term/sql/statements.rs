//! The statements of long-term memory that every SQL dialect writes alike
//! (history, usage log, dialogue buffer, archiving, the scope listing),
//! over a driver's [`SqlConn`]. Every statement names the scope.

use chrono::{DateTime, Utc};

use super::super::backend::{DialogueTurn, HistoryEntry, HistoryReason, UsageLogRow, UsageRecord};
use super::super::scope::MemoryScope;
use super::conn::{Columns, SqlConn, SqlParam, SqlType};
use SqlParam::{Int, Text, Time};

/// `limit` as a `LIMIT` parameter.
fn limit_param(limit: usize) -> SqlParam<'static> {
    Int(i64::try_from(limit).unwrap_or(i64::MAX))
}

/// Adds a history row of entry `id` of `scope`: its old `(name, content)`.
///
/// # Errors
/// The driver's error.
pub async fn add_history<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    (id, name, content): (i64, &str, &str),
    reason: HistoryReason,
    now: DateTime<Utc>,
) -> Result<(), C::Error> {
    let (agent, user) = (Text(scope.agent()), Text(scope.user()));
    let params = [
        Int(id),
        agent,
        user,
        Text(name),
        Text(content),
        Text(reason.as_str()),
        Time(now),
    ];
    conn.execute(
        "INSERT INTO agcore_lt_history (memory_id, agent_name, user_id, name, content, reason, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
        &params,
    )
    .await?;
    Ok(())
}

/// The history rows of entry `id` of `scope`, oldest first.
///
/// # Errors
/// The driver's error; a storage error for a row this library did not write.
pub async fn history<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<HistoryEntry>, C::Error> {
    let found = conn
        .query(
            "SELECT name, content, reason, recorded_at FROM agcore_lt_history
             WHERE memory_id = ? AND agent_name = ? AND user_id = ? ORDER BY id",
            &[Int(id), Text(scope.agent()), Text(scope.user())],
            &[SqlType::Text, SqlType::Text, SqlType::Text, SqlType::Time],
        )
        .await?;
    let entry = |mut row: Columns| {
        Ok(HistoryEntry {
            memory_id: id,
            name: row.text()?,
            content: row.text()?,
            reason: HistoryReason::parse(&row.text()?)?,
            recorded_at: row.time()?,
        })
    };
    Ok(found
        .into_iter()
        .map(|row| entry(Columns::new(row)))
        .collect::<Result<Vec<_>, crate::MemoryError>>()?)
}

/// Adds the usage-log row of entry `id` for `record` at `now`.
///
/// # Errors
/// The driver's error.
pub async fn log_use<C: SqlConn + ?Sized>(
    conn: &mut C,
    id: i64,
    record: &UsageRecord,
    now: DateTime<Utc>,
) -> Result<(), C::Error> {
    let (session, query) = (Text(&record.session_id), Text(&record.query));
    conn.execute(
        "INSERT INTO agcore_lt_usage_log (memory_id, session_id, query, was_referenced, used_at)
         VALUES (?, ?, ?, ?, ?)",
        &[
            Int(id),
            session,
            query,
            SqlParam::Bool(record.referenced),
            Time(now),
        ],
    )
    .await?;
    Ok(())
}

/// The usage-log rows of entry `id` of `scope`, oldest first.
///
/// # Errors
/// The driver's error; a storage error for a row this library did not write.
pub async fn usage_log<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<UsageLogRow>, C::Error> {
    let found = conn
        .query(
            "SELECT u.session_id, u.query, u.was_referenced, u.used_at FROM agcore_lt_usage_log u
             JOIN agcore_lt_entries m ON m.id = u.memory_id
             WHERE u.memory_id = ? AND m.agent_name = ? AND m.user_id = ? ORDER BY u.id",
            &[Int(id), Text(scope.agent()), Text(scope.user())],
            &[SqlType::Text, SqlType::Text, SqlType::Bool, SqlType::Time],
        )
        .await?;
    let entry = |mut row: Columns| {
        Ok(UsageLogRow {
            memory_id: id,
            session_id: row.text()?,
            query: row.text()?,
            was_referenced: row.flag()?,
            used_at: row.time()?,
        })
    };
    Ok(found
        .into_iter()
        .map(|row| entry(Columns::new(row)))
        .collect::<Result<Vec<_>, crate::MemoryError>>()?)
}

/// Archives the active entries of `scope` with weight below `threshold`;
/// returns how many.
///
/// # Errors
/// The driver's error.
pub async fn archive_below<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    threshold: f64,
    now: DateTime<Utc>,
) -> Result<usize, C::Error> {
    conn.execute(
        "UPDATE agcore_lt_entries SET archived = TRUE, updated_at = ?
         WHERE agent_name = ? AND user_id = ? AND NOT archived AND weight < ?",
        &[
            Time(now),
            Text(scope.agent()),
            Text(scope.user()),
            SqlParam::Float(threshold),
        ],
    )
    .await
}

/// Unapplied turns of (`scope`, `session_id`), oldest first, at most `limit`.
///
/// # Errors
/// The driver's error; a storage error for a row this library did not write.
pub async fn buffer_pending<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    session_id: &str,
    limit: usize,
) -> Result<Vec<DialogueTurn>, C::Error> {
    let (agent, user, session) = (Text(scope.agent()), Text(scope.user()), Text(session_id));
    let found = conn
        .query(
            "SELECT id, user_query, assistant_response, created_at FROM agcore_lt_buffer
             WHERE agent_name = ? AND user_id = ? AND session_id = ? AND applied_at IS NULL
             ORDER BY id LIMIT ?",
            &[agent, user, session, limit_param(limit)],
            &[SqlType::Int, SqlType::Text, SqlType::Text, SqlType::Time],
        )
        .await?;
    let turn = |mut row: Columns| {
        Ok(DialogueTurn {
            id: row.int()?,
            session_id: session_id.to_owned(),
            user_query: row.text()?,
            assistant_response: row.text()?,
            created_at: row.time()?,
        })
    };
    Ok(found
        .into_iter()
        .map(|row| turn(Columns::new(row)))
        .collect::<Result<Vec<_>, crate::MemoryError>>()?)
}

/// Marks the unapplied turns of (`scope`, `session_id`) with id ≤ `up_to`
/// applied at `now`; returns how many.
///
/// # Errors
/// The driver's error.
pub async fn buffer_mark_applied<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    (session_id, up_to): (&str, i64),
    now: DateTime<Utc>,
) -> Result<usize, C::Error> {
    let (agent, user, session) = (Text(scope.agent()), Text(scope.user()), Text(session_id));
    conn.execute(
        "UPDATE agcore_lt_buffer SET applied_at = ? WHERE agent_name = ? AND user_id = ?
         AND session_id = ? AND applied_at IS NULL AND id <= ?",
        &[Time(now), agent, user, session, Int(up_to)],
    )
    .await
}

/// Deletes the buffer turns of `scope` applied before `before`; returns how many.
///
/// # Errors
/// The driver's error.
pub async fn purge_buffer<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    before: DateTime<Utc>,
) -> Result<usize, C::Error> {
    conn.execute(
        "DELETE FROM agcore_lt_buffer WHERE agent_name = ? AND user_id = ?
         AND applied_at IS NOT NULL AND applied_at < ?",
        &[Text(scope.agent()), Text(scope.user()), Time(before)],
    )
    .await
}

/// Every scope that holds entries or buffered turns, sorted (pairs that
/// are no valid scope left out).
///
/// # Errors
/// The driver's error; a storage error for a row this library did not write.
pub async fn scopes<C: SqlConn + ?Sized>(conn: &mut C) -> Result<Vec<MemoryScope>, C::Error> {
    let found = conn
        .query(
            "SELECT agent_name, user_id FROM agcore_lt_entries
             UNION SELECT agent_name, user_id FROM agcore_lt_buffer ORDER BY 1, 2",
            &[],
            &[SqlType::Text, SqlType::Text],
        )
        .await?;
    let pair = |mut row: Columns| Ok((row.text()?, row.text()?));
    let pairs = found.into_iter().map(|row| pair(Columns::new(row)));
    Ok(MemoryScope::valid_only(
        pairs.collect::<Result<Vec<_>, crate::MemoryError>>()?,
    ))
}
