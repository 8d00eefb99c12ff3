//! Items to and from rows: time as seconds + nanoseconds, content as bytes,
//! metadata as exact JSON text plus a `JSONB` copy for filters.

use agcore_memory::MemoryItem;
use agcore_memory::sql_store::join_time;
use tokio_postgres::Row;

use crate::error::{Result, storage};

/// The columns every item query selects, in [`item_from_row`]'s order.
pub(crate) const ITEM_COLUMNS: &str = "i.id, i.content, i.metadata, i.created_s, i.created_ns";

/// The item of a row selected with [`ITEM_COLUMNS`].
///
/// # Errors
/// A storage error for content that is not UTF-8, metadata that is not JSON
/// or a time out of range (a row not written by this library).
pub(crate) fn item_from_row(row: &Row) -> Result<MemoryItem> {
    let id: String = row.try_get(0)?;
    let content: Vec<u8> = row.try_get(1)?;
    let metadata: String = row.try_get(2)?;
    let secs: i64 = row.try_get(3)?;
    let nanos: i32 = row.try_get(4)?;
    let content = String::from_utf8(content)
        .map_err(|_| storage(format!("postgres: content of `{id}` is not UTF-8")))?;
    let metadata = serde_json::from_str(&metadata)?;
    let created_at = join_time(secs, nanos)
        .ok_or_else(|| storage(format!("postgres: time of `{id}` is out of range")))?;
    Ok(MemoryItem {
        id,
        content,
        metadata,
        created_at,
    })
}

/// The `JSONB` copy of metadata used by filters. PostgreSQL's `JSONB` cannot
/// hold `\u0000`, so strings and keys containing NUL are left out (filters
/// on them are checked on the exact metadata instead).
pub(crate) fn filterable(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) if s.contains('\0') => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(filterable).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| {
                    !k.contains('\0') && !matches!(v, Value::String(s) if s.contains('\0'))
                })
                .map(|(k, v)| (k.clone(), filterable(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_strings_leave_the_filter_copy() {
        let v = serde_json::json!({"a": "x\u{0}y", "b": 1, "c\u{0}": 2, "d": ["ok", "n\u{0}"]});
        assert_eq!(
            filterable(&v),
            serde_json::json!({"b": 1, "d": ["ok", null]})
        );
    }
}
