//! SQL text and parameters built from filters and queries, and row decoding.
//!
//! Everything the caller supplies reaches SQLite as a bound parameter.

use crate::error::Result;
use chrono::{DateTime, Utc};
use rusqlite::Row;
use rusqlite::types::Value;

use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::prefix_upper_bound;
use agcore_memory::{MemoryError, MemoryFilter, MemoryItem};

/// Item columns, in the order [`item_from_row`] reads them (table alias `i`).
pub(crate) const ITEM_COLUMNS: &str =
    "i.id, i.content, i.metadata, i.created_secs, i.created_nanos";

/// A `WHERE` fragment (always valid SQL, `1` when unconstrained) and its parameters.
#[derive(Debug, Default)]
pub(crate) struct SqlFilter {
    pub(crate) clause: String,
    pub(crate) params: Vec<Value>,
}

impl SqlFilter {
    fn push(&mut self, condition: &str, params: impl IntoIterator<Item = Value>) {
        self.clause.push_str(" AND ");
        self.clause.push_str(condition);
        self.params.extend(params);
    }
}

/// A creation time as `(seconds, nanoseconds)` since the Unix epoch; the pair
/// keeps chrono's full range and precision (leap seconds included).
pub(crate) fn time_parts(time: DateTime<Utc>) -> (i64, i64) {
    (time.timestamp(), i64::from(time.timestamp_subsec_nanos()))
}

/// The conditions of `filter` (all but `limit`) on table alias `i`. The filter
/// must be valid ([`MemoryFilter::validate`]).
pub(crate) fn filter_sql(filter: &MemoryFilter) -> SqlFilter {
    let mut sql = SqlFilter {
        clause: "1".to_owned(),
        params: Vec::new(),
    };
    if let Some(prefix) = &filter.prefix {
        // A range on the unique index: [prefix, successor) holds exactly the ids
        // starting with `prefix` under SQLite's byte-wise (= code point) order.
        sql.push("i.id >= ?", [Value::Text(prefix.clone())]);
        if let Some(upper) = prefix_upper_bound(prefix) {
            sql.push("i.id < ?", [Value::Text(upper)]);
        }
    }
    if let Some(since) = filter.since {
        let (s, n) = time_parts(since);
        sql.push(
            "(i.created_secs, i.created_nanos) >= (?, ?)",
            [Value::Integer(s), Value::Integer(n)],
        );
    }
    if let Some(until) = filter.until {
        let (s, n) = time_parts(until);
        sql.push(
            "(i.created_secs, i.created_nanos) < (?, ?)",
            [Value::Integer(s), Value::Integer(n)],
        );
    }
    for (key, value) in &filter.metadata {
        let (condition, bound) = metadata_condition(value);
        let mut params = vec![Value::Text(key.clone())];
        params.extend(bound);
        sql.push(
            &format!(
                "EXISTS (SELECT 1 FROM json_each(i.metadata) AS m WHERE m.key = ? AND {condition})"
            ),
            params,
        );
    }
    sql
}

/// [`filter_sql`] plus, when `filter` names one sequence of the context
/// field ([`ContextField::group_in`]), `i.grp = ?`: the rows come from the
/// sequence index (`memory_items_group`) instead of a scan of the table.
pub(crate) fn list_filter_sql(filter: &MemoryFilter, context: Option<&ContextField>) -> SqlFilter {
    let mut sql = filter_sql(filter);
    if let Some(group) = context.and_then(|c| c.group_in(filter)) {
        sql.push("i.grp = ?", [Value::Text(group)]);
    }
    sql
}

/// The `json_each` condition matching a scalar JSON value exactly (type and value).
fn metadata_condition(value: &serde_json::Value) -> (&'static str, Vec<Value>) {
    use serde_json::Value as J;
    match value {
        J::Null => ("m.type = 'null'", vec![]),
        J::Bool(true) => ("m.type = 'true'", vec![]),
        J::Bool(false) => ("m.type = 'false'", vec![]),
        J::String(s) => (
            "m.type = 'text' AND m.atom = ?",
            vec![Value::Text(s.clone())],
        ),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                ("m.type = 'integer' AND m.atom = ?", vec![Value::Integer(i)])
            } else if n.is_u64() {
                // Beyond i64: SQLite reads such integers as reals.
                let f = n.as_f64().unwrap_or(f64::NAN);
                (
                    "m.type IN ('integer', 'real') AND m.atom = ?",
                    vec![Value::Real(f)],
                )
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                ("m.type = 'real' AND m.atom = ?", vec![Value::Real(f)])
            }
        }
        // Rejected by `MemoryFilter::validate`; never matches.
        J::Array(_) | J::Object(_) => ("0", vec![]),
    }
}

/// The text indexed for `content`: its analyzer terms
/// ([`agcore_search::index_terms`]) joined by single spaces.
pub(crate) fn index_terms(content: &str) -> String {
    agcore_search::index_terms(content).join(" ")
}

/// Decodes the [`ITEM_COLUMNS`] of `row`.
pub(crate) fn item_from_row(row: &Row<'_>) -> Result<MemoryItem> {
    let id: String = row.get(0)?;
    let content: String = row.get(1)?;
    let metadata: String = row.get(2)?;
    let secs: i64 = row.get(3)?;
    let nanos: i64 = row.get(4)?;
    let created_at = u32::try_from(nanos)
        .ok()
        .and_then(|n| DateTime::from_timestamp(secs, n))
        .ok_or_else(|| {
            MemoryError::Storage(format!(
                "sqlite: item `{id}` has an invalid timestamp {secs}.{nanos}"
            ))
        })?;
    Ok(MemoryItem {
        metadata: serde_json::from_str(&metadata)?,
        id,
        content,
        created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_parts_round_trip() {
        let t = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
        let (s, n) = time_parts(t);
        assert_eq!(
            DateTime::from_timestamp(s, u32::try_from(n).unwrap()),
            Some(t)
        );
    }
}
