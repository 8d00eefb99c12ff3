//! [`MemoryFilter`] as SQL: conditions on `agcore_items i` with bound
//! parameters (never spliced text), plus what must be checked on the items
//! afterwards.

use agcore_memory::MemoryFilter;
use agcore_memory::retriever::ContextField;
use tokio_postgres::types::ToSql;

use super::rows::split_time;

/// A parameter list for `tokio_postgres` queries.
pub(crate) type Params = Vec<Box<dyn ToSql + Sync + Send>>;

/// Borrows `params` as the slice `tokio_postgres` takes.
pub(crate) fn refs(params: &Params) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| p.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

/// The SQL conditions of a filter.
pub(crate) struct Where {
    /// `TRUE` or `cond AND cond …`, using `$n` parameters numbered from the
    /// first free one given to [`Where::of`].
    pub(crate) sql: String,
    /// Whether the SQL selects exactly the filter's items; when `false`
    /// (metadata conditions: JSONB compares numbers by value, `1` = `1.0`,
    /// and cannot hold NUL), results must also pass [`MemoryFilter::matches`]
    /// and the limit is applied after that check.
    pub(crate) exact: bool,
}

impl Where {
    /// The conditions of `filter`, appending their values to `params`.
    pub(crate) fn of(filter: &MemoryFilter, params: &mut Params) -> Self {
        Self::build(filter, None, params)
    }

    /// [`Self::of`] for lists and counts: when `filter` names one sequence
    /// of the context field ([`ContextField::group_in`]), that condition is
    /// `i.grp = $n` (rows read through `agcore_items_group`, already in list
    /// order) instead of a `JSONB` containment; the metadata conditions
    /// are still checked on the items ([`Where::exact`] is `false`).
    pub(crate) fn of_list(
        filter: &MemoryFilter,
        context: Option<&ContextField>,
        params: &mut Params,
    ) -> Self {
        let group = context.and_then(|c| Some((c.group_key.as_str(), c.group_in(filter)?)));
        Self::build(filter, group, params)
    }

    fn build(filter: &MemoryFilter, group: Option<(&str, String)>, params: &mut Params) -> Self {
        let mut conds = Vec::new();
        let mut exact = true;
        if let Some(prefix) = &filter.prefix {
            params.push(Box::new(prefix.clone()));
            let n = params.len();
            conds.push(format!("i.id >= ${n} AND starts_with(i.id, ${n})"));
        }
        if let Some(since) = filter.since {
            let (s, ns) = split_time(since);
            params.push(Box::new(s));
            params.push(Box::new(ns));
            let n = params.len();
            conds.push(format!("(i.created_s, i.created_ns) >= (${}, ${n})", n - 1));
        }
        if let Some(until) = filter.until {
            let (s, ns) = split_time(until);
            params.push(Box::new(s));
            params.push(Box::new(ns));
            let n = params.len();
            conds.push(format!("(i.created_s, i.created_ns) < (${}, ${n})", n - 1));
        }
        if !filter.metadata.is_empty() {
            exact = false;
            let mut object = serde_json::Map::new();
            let group_key = group.as_ref().map(|g| g.0);
            if let Some((_, grp)) = group {
                params.push(Box::new(grp));
                conds.push(format!("i.grp = ${}", params.len()));
            }
            for (key, value) in &filter.metadata {
                let nul = key.contains('\0') || value.as_str().is_some_and(|s| s.contains('\0'));
                if !nul && group_key != Some(key.as_str()) {
                    object.insert(key.clone(), value.clone());
                }
            }
            if !object.is_empty() {
                params.push(Box::new(serde_json::Value::Object(object)));
                conds.push(format!("i.meta @> ${}", params.len()));
            }
        }
        let sql = if conds.is_empty() {
            "TRUE".to_owned()
        } else {
            conds.join(" AND ")
        };
        Self { sql, exact }
    }
}
