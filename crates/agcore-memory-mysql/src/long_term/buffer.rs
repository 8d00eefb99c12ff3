//! The reads of the history, the usage log, the dialogue buffer and the
//! scope listing, and the buffer's insert.

use agcore_memory::long_term::{
    DialogueTurn, HistoryEntry, HistoryReason, MemoryScope, UsageLogRow,
};
use chrono::{DateTime, Utc};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};

use super::scopes::scope_params;
use super::tx::exec_counted;
use crate::error::Result;
use crate::row::{from_micros, micros, take, text};

pub(crate) async fn history(
    conn: &mut impl Queryable,
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

pub(crate) async fn usage_log(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<UsageLogRow>> {
    let [agent, user] = scope_params(scope);
    let found: Vec<Row> = conn
        .exec(
            "SELECT u.session_id, u.query, u.was_referenced, u.used_at FROM agcore_lt_usage_log u
             JOIN agcore_lt_entries m ON m.id = u.memory_id
             WHERE u.memory_id = ? AND m.agent_name = ? AND m.user_id = ? ORDER BY u.id",
            Params::Positional(vec![Value::Int(id), agent, user]),
        )
        .await?;
    found
        .into_iter()
        .map(|mut row| {
            let referenced: i64 = take(&mut row, 2)?;
            Ok(UsageLogRow {
                memory_id: id,
                session_id: text(&mut row, 0)?,
                query: text(&mut row, 1)?,
                was_referenced: referenced != 0,
                used_at: from_micros(take(&mut row, 3)?)?,
            })
        })
        .collect()
}

pub(crate) async fn append(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    session_id: &str,
    (user_query, assistant_response): (&str, &str),
    now: DateTime<Utc>,
) -> Result<DialogueTurn> {
    let [agent, user] = scope_params(scope);
    let (_, id) = exec_counted(
        conn,
        "INSERT INTO agcore_lt_buffer (agent_name, user_id, session_id, user_query, assistant_response, created_at)
         VALUES (?, ?, ?, ?, ?, ?)",
        vec![
            agent,
            user,
            Value::from(session_id.as_bytes()),
            Value::from(user_query.as_bytes()),
            Value::from(assistant_response.as_bytes()),
            Value::Int(micros(now)),
        ],
    )
    .await?;
    let id = id
        .and_then(|id| i64::try_from(id).ok())
        .ok_or_else(|| crate::error::storage("mysql: the buffered turn has no id"))?;
    Ok(DialogueTurn {
        id,
        session_id: session_id.to_owned(),
        user_query: user_query.to_owned(),
        assistant_response: assistant_response.to_owned(),
        created_at: from_micros(micros(now))?,
    })
}

pub(crate) async fn pending(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    session_id: &str,
    limit: usize,
) -> Result<Vec<DialogueTurn>> {
    let [agent, user] = scope_params(scope);
    let found: Vec<Row> = conn
        .exec(
            "SELECT id, user_query, assistant_response, created_at FROM agcore_lt_buffer
             WHERE agent_name = ? AND user_id = ? AND session_id = ? AND applied_at IS NULL
             ORDER BY id LIMIT ?",
            Params::Positional(vec![
                agent,
                user,
                Value::from(session_id.as_bytes()),
                Value::Int(i64::try_from(limit).unwrap_or(i64::MAX)),
            ]),
        )
        .await?;
    found
        .into_iter()
        .map(|mut row| {
            Ok(DialogueTurn {
                id: take(&mut row, 0)?,
                session_id: session_id.to_owned(),
                user_query: text(&mut row, 1)?,
                assistant_response: text(&mut row, 2)?,
                created_at: from_micros(take(&mut row, 3)?)?,
            })
        })
        .collect()
}

pub(crate) async fn scopes(conn: &mut impl Queryable) -> Result<Vec<MemoryScope>> {
    let found: Vec<Row> = conn
        .query(
            "SELECT agent_name, user_id FROM agcore_lt_entries
             UNION SELECT agent_name, user_id FROM agcore_lt_buffer ORDER BY 1, 2",
        )
        .await?;
    let pairs = found
        .into_iter()
        .map(|mut row| Ok((text(&mut row, 0)?, text(&mut row, 1)?)))
        .collect::<Result<Vec<_>>>()?;
    Ok(MemoryScope::valid_only(pairs))
}
