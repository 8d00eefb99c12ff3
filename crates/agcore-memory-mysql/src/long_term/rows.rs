//! Entries to and from rows; the scope's statistics and the words'
//! document frequencies ([`super::df`]) change in the same transaction as
//! the entry, and the `FULLTEXT` index follows the `terms` column by itself.

use agcore_memory::MemoryError;
use agcore_memory::long_term::columns::entry_columns;
use agcore_memory::long_term::sql::{
    ENTRY_COLUMNS, ENTRY_TYPES, SqlType, SqlValue, entry_from_values,
};
use agcore_memory::long_term::{MemoryEntry, MemoryScope, content_key};
use agcore_search::index_terms;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};
use sha2::{Digest, Sha256};

use super::df;
use super::scopes::scope_params;
use crate::error::{Result, is_duplicate};
use crate::row::{from_micros, from_micros_opt, micros, take, text};
use crate::terms;

/// The entry of a row selected with [`ENTRY_COLUMNS`] first.
///
/// # Errors
/// A storage error for a row this library did not write.
pub(crate) fn entry_from_row(row: &mut Row) -> Result<MemoryEntry> {
    Ok(entry_from_values(read(row, &ENTRY_TYPES)?)?)
}

/// The first columns of `row`, read as `types` (times stored as
/// microseconds, flags as integers).
pub(crate) fn read(row: &mut Row, types: &[SqlType]) -> Result<Vec<SqlValue>> {
    let mut value = |(i, ty): (usize, &SqlType)| -> Result<SqlValue> {
        Ok(match ty {
            SqlType::Int => SqlValue::Int(take(row, i)?),
            SqlType::Float => SqlValue::Float(take(row, i)?),
            SqlType::Bool => SqlValue::Bool(take::<i64>(row, i)? != 0),
            SqlType::Text => SqlValue::Text(text(row, i)?),
            SqlType::Time => SqlValue::Time(from_micros(take(row, i)?)?),
            SqlType::TimeOrNull => match from_micros_opt(take(row, i)?)? {
                Some(time) => SqlValue::Time(time),
                None => SqlValue::Null,
            },
        })
    };
    types.iter().enumerate().map(&mut value).collect()
}

/// The SHA-256 of an entry content's normalised key.
pub(crate) fn content_hash(content: &str) -> Vec<u8> {
    Sha256::digest(content_key(content).as_bytes()).to_vec()
}

/// Entries `ids` of `scope` in `IN (…)` queries of at most 500 ids: one per
/// id, in order (`None` when absent or in another scope).
pub(crate) async fn load_many(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    ids: &[i64],
) -> Result<Vec<Option<MemoryEntry>>> {
    let mut found = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM agcore_lt_entries m
             WHERE m.id IN ({marks}) AND m.agent_name = ? AND m.user_id = ?"
        );
        let mut params: Vec<Value> = chunk.iter().map(|&id| Value::Int(id)).collect();
        params.extend(scope_params(scope));
        let rows: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
        for mut row in rows {
            found.push(entry_from_row(&mut row)?);
        }
    }
    Ok(agcore_memory::long_term::entries_in_order(ids, found))
}

/// The id of the entry of `scope` whose content has this normalised form.
pub(crate) async fn id_by_content(
    conn: &mut impl Queryable,
    scope: &MemoryScope,
    content: &str,
) -> Result<Option<i64>> {
    let [agent, user] = scope_params(scope);
    Ok(conn
        .exec_first(
            // Through the scope row, so the unique (scope_id, content_hash)
            // index finds the entry (not a scan of the scope's entries).
            "SELECT m.id FROM agcore_lt_scopes s
             JOIN agcore_lt_entries m ON m.scope_id = s.id AND m.content_hash = ?
             WHERE s.agent_name = ? AND s.user_id = ?",
            Params::Positional(vec![Value::from(content_hash(content)), agent, user]),
        )
        .await?)
}

/// The `terms` column of an entry in scope row `scope_id`, and its length.
fn analyze(entry: &MemoryEntry, scope_id: i64) -> (String, i64) {
    analyze_text(&entry.search_text(), scope_id)
}

/// The `terms` column of `text` (an entry's search text, or part of one) in
/// scope row `scope_id`, and its length.
pub(crate) fn analyze_text(text: &str, scope_id: i64) -> (String, i64) {
    let tokens = index_terms(text);
    let len = i64::try_from(tokens.len()).unwrap_or(i64::MAX);
    (terms::column(&format!("s{scope_id}"), &tokens), len)
}

/// The values of every stored column of `entry` but its id and scope, in
/// the order [`insert`] and [`store`] name them.
fn values(entry: &MemoryEntry, terms: String, len: i64) -> Result<Vec<Value>> {
    let (metadata, tags, use_count) = entry_columns(entry)?;
    Ok(vec![
        Value::from(entry.memory_type.as_str()),
        Value::from(entry.name.as_bytes()),
        Value::from(entry.content.as_bytes()),
        Value::from(entry.description.as_bytes()),
        Value::from(metadata),
        Value::from(tags),
        Value::Double(entry.weight),
        Value::Int(i64::from(entry.archived)),
        Value::Int(use_count),
        entry
            .last_used_at
            .map(micros)
            .map_or(Value::NULL, Value::Int),
        Value::Int(micros(entry.weight_updated_at)),
        Value::Int(micros(entry.updated_at)),
        Value::from(content_hash(&entry.content)),
        Value::Int(len),
        Value::from(terms),
    ])
}

/// Inserts `entry` into its scope unless its content is taken there;
/// returns the new id, or `None` on a duplicate.
pub(crate) async fn insert(
    conn: &mut impl Queryable,
    scope_id: i64,
    entry: &MemoryEntry,
) -> Result<Option<i64>> {
    let (terms, len) = analyze(entry, scope_id);
    let mut params = vec![
        Value::Int(scope_id),
        Value::from(entry.agent_name.as_bytes()),
        Value::from(entry.user_id.as_bytes()),
        Value::Int(micros(entry.created_at)),
    ];
    params.extend(values(entry, terms.clone(), len)?);
    let inserted = conn
        .exec_drop(
            "INSERT INTO agcore_lt_entries (scope_id, agent_name, user_id, created_at, memory_type,
                 name, content, description, metadata, tags, weight, archived, use_count,
                 last_used_at, weight_updated_at, updated_at, content_hash, len, terms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            Params::Positional(params),
        )
        .await;
    match inserted.map_err(crate::MysqlError::from) {
        Ok(()) => {}
        Err(err) if is_duplicate(&err) => return Ok(None),
        Err(err) => return Err(err),
    }
    let id: Option<i64> = conn.query_first("SELECT LAST_INSERT_ID()").await?;
    let id = id.ok_or_else(|| crate::error::storage("mysql: the new entry has no id"))?;
    df::account(conn, scope_id, (1, len), ("", &terms)).await?;
    Ok(Some(id))
}

/// Writes every column of `entry` (its id, scope and creation time
/// unchanged), keeping the scope's total length right.
pub(crate) async fn store(conn: &mut impl Queryable, entry: &MemoryEntry) -> Result<()> {
    let old: Option<(i64, i64, String)> = conn
        .exec_first(
            "SELECT scope_id, len, terms FROM agcore_lt_entries WHERE id = ? FOR UPDATE",
            (entry.id,),
        )
        .await?;
    let Some((scope_id, old_len, old_terms)) = old else {
        return Err(MemoryError::NotFound(format!("memory {}", entry.id)).into());
    };
    let (terms, len) = analyze(entry, scope_id);
    let words = (terms != old_terms).then(|| terms.clone());
    let mut params = values(entry, terms, len)?;
    params.push(Value::Int(entry.id));
    conn.exec_drop(
        "UPDATE agcore_lt_entries SET memory_type = ?, name = ?, content = ?, description = ?,
             metadata = ?, tags = ?, weight = ?, archived = ?, use_count = ?, last_used_at = ?,
             weight_updated_at = ?, updated_at = ?, content_hash = ?, len = ?, terms = ?
         WHERE id = ?",
        Params::Positional(params),
    )
    .await?;
    if let Some(terms) = words {
        df::account(conn, scope_id, (0, len - old_len), (&old_terms, &terms)).await?;
    }
    Ok(())
}
