//! Entries read back from their rows, as every SQL dialect selects them:
//! the columns ([`ENTRY_COLUMNS`], read as [`ENTRY_TYPES`]) and their
//! entry ([`entry_from_values`]), one entry ([`load`]) and a listing
//! ([`list`]) of a scope, over a driver's [`SqlConn`].

use super::super::backend::{ArchivedFilter, ListRequest};
use super::super::columns::stored_json;
use super::super::entry::{MemoryEntry, MemoryType};
use super::super::scope::MemoryScope;
use super::conn::{Columns, SqlConn, SqlParam, SqlType, SqlValue};
use crate::MemoryError;

/// The columns every entry query selects (alias `m`), in
/// [`entry_from_values`]'s order.
pub const ENTRY_COLUMNS: &str = "m.id, m.agent_name, m.user_id, m.memory_type, m.name, \
    m.content, m.description, m.metadata, m.tags, m.weight, m.archived, m.use_count, \
    m.last_used_at, m.weight_updated_at, m.created_at, m.updated_at";

/// The types [`ENTRY_COLUMNS`] are read as, in order.
pub const ENTRY_TYPES: [SqlType; 16] = {
    use SqlType::{Bool, Float, Int, Text, Time, TimeOrNull};
    [
        Int, Text, Text, Text, Text, Text, Text, Text, Text, Float, Bool, Int, TimeOrNull, Time,
        Time, Time,
    ]
};

/// The entry of a row's [`ENTRY_COLUMNS`] values (further values ignored).
///
/// # Errors
/// [`MemoryError::Storage`] for a row this library did not write.
pub fn entry_from_values(row: Vec<SqlValue>) -> Result<MemoryEntry, MemoryError> {
    let mut row = Columns::new(row);
    Ok(MemoryEntry {
        id: row.int()?,
        agent_name: row.text()?,
        user_id: row.text()?,
        memory_type: MemoryType::parse(&row.text()?)
            .map_err(|e| MemoryError::Storage(format!("long-term memory: bad stored type: {e}")))?,
        name: row.text()?,
        content: row.text()?,
        description: row.text()?,
        metadata: stored_json("metadata", &row.text()?)?,
        tags: stored_json("tags", &row.text()?)?,
        weight: row.float()?,
        archived: row.flag()?,
        use_count: u64::try_from(row.int()?).unwrap_or(0),
        last_used_at: row.time_or_null()?,
        weight_updated_at: row.time()?,
        created_at: row.time()?,
        updated_at: row.time()?,
    })
}

/// The `archived` condition of `filter` on the rows of `alias` (`m`, an
/// entry, or a row of the driver's index that has the column).
pub fn archived_sql(filter: ArchivedFilter, alias: &str) -> String {
    match filter {
        ArchivedFilter::Include => "TRUE".to_owned(),
        ArchivedFilter::Only => format!("{alias}.archived"),
        _ => format!("NOT {alias}.archived"),
    }
}

fn lock_sql(lock: bool) -> &'static str {
    if lock { " FOR UPDATE" } else { "" }
}

async fn entries<C: SqlConn + ?Sized>(
    conn: &mut C,
    sql: &str,
    params: &[SqlParam<'_>],
) -> Result<Vec<MemoryEntry>, C::Error> {
    let found = conn.query(sql, params, &ENTRY_TYPES).await?;
    let entries = found.into_iter().map(entry_from_values);
    Ok(entries.collect::<Result<Vec<_>, MemoryError>>()?)
}

/// Entry `id` of `scope` (`None` when absent or in another scope), its row
/// locked for update when `lock`.
///
/// # Errors
/// The driver's error; a storage error for a row this library did not write.
pub async fn load<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    id: i64,
    lock: bool,
) -> Result<Option<MemoryEntry>, C::Error> {
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m
         WHERE m.id = ? AND m.agent_name = ? AND m.user_id = ?{}",
        lock_sql(lock)
    );
    let params = [
        SqlParam::Int(id),
        SqlParam::Text(scope.agent()),
        SqlParam::Text(scope.user()),
    ];
    Ok(entries(conn, &sql, &params).await?.pop())
}

/// The entries of `scope` passing `request`, in its order, their rows
/// locked for update when `lock`. The type and weight conditions and the
/// `LIMIT` are written only when the request sets them.
///
/// # Errors
/// The driver's error; a storage error for a row this library did not write.
pub async fn list<C: SqlConn + ?Sized>(
    conn: &mut C,
    scope: &MemoryScope,
    request: &ListRequest,
    lock: bool,
) -> Result<Vec<MemoryEntry>, C::Error> {
    let mut params = vec![SqlParam::Text(scope.agent()), SqlParam::Text(scope.user())];
    let mut sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m WHERE m.agent_name = ? AND m.user_id = ?
         AND {}",
        archived_sql(request.archived, "m")
    );
    if let Some(ty) = request.memory_type {
        sql.push_str(" AND m.memory_type = ?");
        params.push(SqlParam::Text(ty.as_str()));
    }
    if let Some(min) = request.min_weight {
        sql.push_str(" AND m.weight >= ?");
        params.push(SqlParam::Float(min));
    }
    sql.push_str(&format!(" ORDER BY {}", request.order.sql_order_by()));
    if let Some(limit) = request.limit {
        sql.push_str(" LIMIT ?");
        params.push(SqlParam::Int(i64::try_from(limit).unwrap_or(i64::MAX)));
    }
    sql.push_str(lock_sql(lock));
    entries(conn, &sql, &params).await
}
