//! Entries to and from rows, and their index rows: postings and the scope's
//! statistics change in the same transaction as the entry.

use std::collections::BTreeMap;

use agcore_memory::long_term::columns::entry_columns;
use agcore_memory::long_term::sql::{ENTRY_TYPES, SqlType, SqlValue, entry_from_values};
use agcore_memory::long_term::{MemoryEntry, MemoryScope, content_key};
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use crate::error::Result;
use crate::reindex::analyze;

/// The entry of a row selected with [`ENTRY_COLUMNS`] first.
///
/// # Errors
/// A storage error for a row this library did not write.
pub(crate) fn entry_from_row(row: &Row) -> Result<MemoryEntry> {
    Ok(entry_from_values(values(row, &ENTRY_TYPES)?)?)
}

/// The first columns of `row`, read as `types`.
pub(crate) fn values(row: &Row, types: &[SqlType]) -> Result<Vec<SqlValue>> {
    let value = |(i, ty): (usize, &SqlType)| -> Result<SqlValue> {
        Ok(match ty {
            SqlType::Int => SqlValue::Int(row.try_get(i)?),
            SqlType::Float => SqlValue::Float(row.try_get(i)?),
            SqlType::Bool => SqlValue::Bool(row.try_get(i)?),
            SqlType::Text => SqlValue::Text(row.try_get(i)?),
            SqlType::Time => SqlValue::Time(row.try_get(i)?),
            SqlType::TimeOrNull => {
                let time: Option<DateTime<Utc>> = row.try_get(i)?;
                time.map_or(SqlValue::Null, SqlValue::Time)
            }
        })
    };
    types.iter().enumerate().map(value).collect()
}

/// The scope's row id, created on first use.
///
/// The insert takes no lock on an existing row (`DO NOTHING`, then a read):
/// `DO UPDATE` would lock the row that a concurrent first save of the scope
/// had just created, and that save's own update of the scope's statistics
/// then waited for this transaction while it waited for that one (a
/// deadlock, seen with eight writers saving into a new scope).
pub(crate) async fn scope_id(client: &impl GenericClient, scope: &MemoryScope) -> Result<i64> {
    // Twice at most: a conflicting insert is committed by the time ours
    // reports it (the statement waits for it), so the second read finds it.
    for _ in 0..2 {
        if let Some(id) = existing_scope_id(client, scope).await? {
            return Ok(id);
        }
        if let Some(row) = client
            .query_opt(
                "INSERT INTO agcore_lt_scopes (agent_name, user_id) VALUES ($1, $2)
                 ON CONFLICT (agent_name, user_id) DO NOTHING RETURNING id",
                &[&scope.agent(), &scope.user()],
            )
            .await?
        {
            return Ok(row.try_get(0)?);
        }
    }
    Err(crate::error::storage(
        "postgres: long-term scope row vanished while being created; retry",
    ))
}

/// The scope's row id, `None` when it never held an entry.
pub(crate) async fn existing_scope_id(
    client: &impl GenericClient,
    scope: &MemoryScope,
) -> Result<Option<i64>> {
    // Prepared once per connection: every long-term search starts here.
    let statement = client
        .prepare_cached("SELECT id FROM agcore_lt_scopes WHERE agent_name = $1 AND user_id = $2")
        .await?;
    let row = client
        .query_opt(&statement, &[&scope.agent(), &scope.user()])
        .await?;
    Ok(row.map(|r| r.try_get(0)).transpose()?)
}

pub(crate) async fn write_postings(
    client: &impl GenericClient,
    scope_id: i64,
    id: i64,
    tfs: &BTreeMap<String, i32>,
) -> Result<()> {
    if tfs.is_empty() {
        return Ok(());
    }
    let terms: Vec<&str> = tfs.keys().map(String::as_str).collect();
    let counts: Vec<i32> = tfs.values().copied().collect();
    client
        .execute(
            "INSERT INTO agcore_lt_postings (scope_id, term, entry_id, tf, len, archived, memory_type)
             SELECT $1, u.t, $2, u.f, m.len, m.archived, m.memory_type
             FROM unnest($3::text[], $4::int4[]) AS u(t, f) JOIN agcore_lt_entries m ON m.id = $2",
            &[&scope_id, &id, &terms, &counts],
        )
        .await?;
    Ok(())
}

/// Adds to the scope's entry count and total length.
pub(crate) async fn adjust_scope(
    client: &impl GenericClient,
    scope_id: i64,
    docs: i64,
    len: i64,
) -> Result<()> {
    client
        .execute(
            "UPDATE agcore_lt_scopes SET docs = docs + $2, total_len = total_len + $3 WHERE id = $1",
            &[&scope_id, &docs, &len],
        )
        .await?;
    Ok(())
}

/// Writes every column of `entry` (its id and scope unchanged); `reindex`
/// when its name, content or description may have changed.
pub(crate) async fn store(
    client: &impl GenericClient,
    scope_id: i64,
    entry: &MemoryEntry,
    reindex: bool,
) -> Result<()> {
    let (metadata, tags, use_count) = entry_columns(entry)?;
    let (tfs, len) = analyze(&entry.search_text());
    let key = content_key(&entry.content);
    let old_len: i32 = client
        .query_one(
            "WITH old AS (SELECT len FROM agcore_lt_entries WHERE id = $1)
             UPDATE agcore_lt_entries SET memory_type = $2, name = $3, content = $4,
                 description = $5, metadata = $6, tags = $7, weight = $8, archived = $9,
                 use_count = $10, last_used_at = $11, weight_updated_at = $12,
                 updated_at = $13, content_key = $14, len = $15
             WHERE id = $1 RETURNING (SELECT len FROM old)",
            &[
                &entry.id,
                &entry.memory_type.as_str(),
                &entry.name,
                &entry.content,
                &entry.description,
                &metadata,
                &tags,
                &entry.weight,
                &entry.archived,
                &use_count,
                &entry.last_used_at,
                &entry.weight_updated_at,
                &entry.updated_at,
                &key,
                &len,
            ],
        )
        .await?
        .try_get(0)?;
    if !reindex {
        return Ok(());
    }
    client
        .execute(
            "DELETE FROM agcore_lt_postings WHERE entry_id = $1",
            &[&entry.id],
        )
        .await?;
    write_postings(client, scope_id, entry.id, &tfs).await?;
    if old_len != len {
        adjust_scope(client, scope_id, 0, i64::from(len) - i64::from(old_len)).await?;
    }
    Ok(())
}
