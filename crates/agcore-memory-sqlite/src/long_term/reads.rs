//! The backend's reads as synchronous functions on the connection: an
//! entry by its key, its history, listings. Every statement names the scope
//! in its `WHERE` clause.

use crate::error::Result;
use rusqlite::{Connection, params};

use super::rows::{self, ENTRY_COLUMNS, entry_from_row};
use super::time::parse_time;
use agcore_memory::long_term::{
    HistoryEntry, HistoryReason, ListRequest, MemoryEntry, MemoryScope,
};

pub(crate) fn find_by_key(
    conn: &Connection,
    scope: &MemoryScope,
    key: &str,
) -> Result<Option<MemoryEntry>> {
    match rows::id_by_key(conn, scope, key)? {
        Some(id) => rows::load(conn, scope, id),
        None => Ok(None),
    }
}

pub(crate) fn history(
    conn: &Connection,
    scope: &MemoryScope,
    id: i64,
) -> Result<Vec<HistoryEntry>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, content, reason, recorded_at FROM memory_history \
         WHERE memory_id = ?1 AND agent_name = ?2 AND user_id = ?3 ORDER BY id",
    )?;
    let mut rows = stmt.query(params![id, scope.agent(), scope.user()])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(HistoryEntry {
            memory_id: id,
            name: row.get(0)?,
            content: row.get(1)?,
            reason: HistoryReason::parse(&row.get::<_, String>(2)?)?,
            recorded_at: parse_time(&row.get::<_, String>(3)?)?,
        });
    }
    Ok(out)
}

/// The `archived` condition of `filter` on table alias `m`.
pub(super) fn archived_sql(filter: agcore_memory::long_term::ArchivedFilter) -> &'static str {
    use agcore_memory::long_term::ArchivedFilter as A;
    match filter {
        A::Include => "1",
        A::Only => "m.archived = 1",
        _ => "m.archived = 0",
    }
}

pub(crate) fn list(
    conn: &Connection,
    scope: &MemoryScope,
    request: &ListRequest,
) -> Result<Vec<MemoryEntry>> {
    let order = request.order.sql_order_by();
    let limit = request
        .limit
        .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM memory m WHERE m.agent_name = ?1 AND m.user_id = ?2 \
         AND (?3 IS NULL OR m.type = ?3) AND (?4 IS NULL OR m.weight >= ?4) AND {} \
         ORDER BY {order} LIMIT ?5",
        archived_sql(request.archived)
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![
        scope.agent(),
        scope.user(),
        request.memory_type.map(|t| t.as_str()),
        request.min_weight,
        limit
    ])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(entry_from_row(row)?);
    }
    Ok(out)
}
