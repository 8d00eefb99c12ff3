//! Entries to and from rows; the scope's statistics and the words'
//! document frequencies ([`super::df`]) change in the same transaction as
//! the entry, and the `FULLTEXT` index follows the `terms` column by itself.

use agcore_memory::MemoryError;
use agcore_memory::long_term::columns::entry_columns;
use agcore_memory::long_term::sql::{ENTRY_TYPES, SqlType, SqlValue, entry_from_values};
use agcore_memory::long_term::{MemoryEntry, content_key};
use agcore_search::index_terms;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};
use sha2::{Digest, Sha256};

use super::df;
use crate::error::Result;
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

/// The `terms` column of an entry in scope row `scope_id`, and its length.
pub(crate) fn analyze(entry: &MemoryEntry, scope_id: i64) -> (String, i64) {
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
pub(crate) fn values(entry: &MemoryEntry, terms: String, len: i64) -> Result<Vec<Value>> {
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
