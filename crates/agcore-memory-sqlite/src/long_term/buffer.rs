//! The dialogue buffer, the usage log and the scope listing on the
//! connection; every statement names the scope in its `WHERE` clause.

use crate::error::Result;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};

use super::time::{format_time, parse_time};
use agcore_memory::long_term::MemoryScope;
use agcore_memory::long_term::{DialogueTurn, UsageLogRow};

pub(crate) fn usage_log(
    conn: &Connection,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<UsageLogRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT u.session_id, u.query, u.was_referenced, u.used_at FROM memory_usage_log u \
         JOIN memory m ON m.id = u.memory_id \
         WHERE u.memory_id = ?1 AND m.agent_name = ?2 AND m.user_id = ?3 ORDER BY u.id",
    )?;
    let mut rows = stmt.query(params![id, scope.agent(), scope.user()])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(UsageLogRow {
            memory_id: id,
            session_id: row.get(0)?,
            query: row.get(1)?,
            was_referenced: row.get::<_, i64>(2)? != 0,
            used_at: parse_time(&row.get::<_, String>(3)?)?,
        });
    }
    Ok(out)
}

pub(crate) fn buffer_append(
    conn: &Connection,
    scope: &MemoryScope,
    session_id: &str,
    user_query: &str,
    assistant_response: &str,
    now: DateTime<Utc>,
) -> Result<DialogueTurn> {
    conn.prepare_cached(
        "INSERT INTO dialogue_buffer (agent_name, user_id, session_id, user_query, assistant_response, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![scope.agent(), scope.user(), session_id, user_query, assistant_response, format_time(now)])?;
    Ok(DialogueTurn {
        id: conn.last_insert_rowid(),
        session_id: session_id.to_owned(),
        user_query: user_query.to_owned(),
        assistant_response: assistant_response.to_owned(),
        created_at: now,
    })
}

pub(crate) fn buffer_pending(
    conn: &Connection,
    scope: &MemoryScope,
    session_id: &str,
    limit: usize,
) -> Result<Vec<DialogueTurn>> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(
        "SELECT id, user_query, assistant_response, created_at FROM dialogue_buffer \
         WHERE agent_name = ?1 AND user_id = ?2 AND session_id = ?3 AND applied_at IS NULL \
         ORDER BY id LIMIT ?4",
    )?;
    let mut rows = stmt.query(params![scope.agent(), scope.user(), session_id, limit])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(DialogueTurn {
            id: row.get(0)?,
            session_id: session_id.to_owned(),
            user_query: row.get(1)?,
            assistant_response: row.get(2)?,
            created_at: parse_time(&row.get::<_, String>(3)?)?,
        });
    }
    Ok(out)
}

pub(crate) fn buffer_mark_applied(
    conn: &Connection,
    scope: &MemoryScope,
    session_id: &str,
    up_to: i64,
    now: DateTime<Utc>,
) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE dialogue_buffer SET applied_at = ?5 WHERE agent_name = ?1 AND user_id = ?2 \
         AND session_id = ?3 AND applied_at IS NULL AND id <= ?4",
        params![
            scope.agent(),
            scope.user(),
            session_id,
            up_to,
            format_time(now)
        ],
    )?)
}

pub(crate) fn scopes(conn: &Connection) -> Result<Vec<MemoryScope>> {
    let mut stmt = conn.prepare_cached(
        "SELECT agent_name, user_id FROM memory UNION SELECT agent_name, user_id FROM dialogue_buffer ORDER BY 1, 2",
    )?;
    let pairs = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MemoryScope::valid_only(pairs))
}
