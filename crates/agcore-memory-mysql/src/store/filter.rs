//! [`MemoryFilter`] as SQL: conditions on `agcore_items i` with bound
//! parameters (never spliced text), plus what must be checked on the items
//! afterwards.

use agcore_memory::MemoryFilter;
use mysql_async::Value;

use crate::row::split_time;

/// The SQL conditions of a filter.
pub(crate) struct Where {
    /// `TRUE` or `cond AND cond …` with `?` parameters.
    pub(crate) sql: String,
    /// The values of the parameters, in order.
    pub(crate) params: Vec<Value>,
    /// Whether the SQL selects exactly the filter's items; when `false`
    /// (metadata conditions: `JSON_CONTAINS` compares numbers by value and
    /// arrays by containment), results must also pass
    /// [`MemoryFilter::matches`] and the limit is applied after that check.
    pub(crate) exact: bool,
}

impl Where {
    /// The conditions of `filter`.
    pub(crate) fn of(filter: &MemoryFilter) -> Self {
        let mut conds = Vec::new();
        let mut params = Vec::new();
        let mut exact = true;
        if let Some(prefix) = &filter.prefix {
            conds.push("i.id >= ? AND SUBSTRING(i.id, 1, ?) = ?".to_owned());
            params.push(Value::from(prefix.as_bytes()));
            params.push(Value::Int(i64::try_from(prefix.len()).unwrap_or(i64::MAX)));
            params.push(Value::from(prefix.as_bytes()));
        }
        if let Some(since) = filter.since {
            let (s, ns) = split_time(since);
            conds.push("(i.created_s > ? OR (i.created_s = ? AND i.created_ns >= ?))".to_owned());
            params.extend([Value::Int(s), Value::Int(s), Value::Int(i64::from(ns))]);
        }
        if let Some(until) = filter.until {
            let (s, ns) = split_time(until);
            conds.push("(i.created_s < ? OR (i.created_s = ? AND i.created_ns < ?))".to_owned());
            params.extend([Value::Int(s), Value::Int(s), Value::Int(i64::from(ns))]);
        }
        if !filter.metadata.is_empty() {
            exact = false;
            let object: serde_json::Map<String, serde_json::Value> = filter
                .metadata
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            conds.push("JSON_CONTAINS(i.metadata, ?)".to_owned());
            params.push(Value::from(serde_json::Value::Object(object).to_string()));
        }
        let sql = if conds.is_empty() {
            "TRUE".to_owned()
        } else {
            conds.join(" AND ")
        };
        Self { sql, params, exact }
    }
}
