//! [`MemoryFilter`] as SQL: conditions on `agcore_items i` with bound
//! parameters (never spliced text), plus what must be checked on the items
//! afterwards.

use agcore_memory::MemoryFilter;
use agcore_memory::retriever::ContextField;
use tokio_postgres::types::{ToSql, Type};

use agcore_memory::sql_store::split_time;

/// Bound parameters of a statement with their SQL types, in `$1, $2, …`
/// order: sent with the statement in one round trip
/// (`query_typed`: no prepare round trip, and a plan for these values).
#[derive(Default)]
pub(crate) struct Params(Vec<(Box<dyn ToSql + Sync + Send>, Type)>);

impl Params {
    /// Appends `value` of SQL type `ty`; returns its number `n` (for `$n`).
    pub(crate) fn push(&mut self, value: impl ToSql + Sync + Send + 'static, ty: Type) -> usize {
        self.0.push((Box::new(value), ty));
        self.0.len()
    }

    /// Borrowed as `query_typed` takes them.
    pub(crate) fn typed(&self) -> Vec<(&(dyn ToSql + Sync), Type)> {
        self.0
            .iter()
            .map(|(v, ty)| (v.as_ref() as &(dyn ToSql + Sync), ty.clone()))
            .collect()
    }
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
            let n = params.push(prefix.clone(), Type::TEXT);
            conds.push(format!("i.id >= ${n} AND starts_with(i.id, ${n})"));
        }
        if let Some(since) = filter.since {
            let (s, ns) = split_time(since);
            params.push(s, Type::INT8);
            let n = params.push(ns, Type::INT4);
            conds.push(format!("(i.created_s, i.created_ns) >= (${}, ${n})", n - 1));
        }
        if let Some(until) = filter.until {
            let (s, ns) = split_time(until);
            params.push(s, Type::INT8);
            let n = params.push(ns, Type::INT4);
            conds.push(format!("(i.created_s, i.created_ns) < (${}, ${n})", n - 1));
        }
        if !filter.metadata.is_empty() {
            exact = false;
            let mut object = serde_json::Map::new();
            let group_key = group.as_ref().map(|g| g.0);
            if let Some((_, grp)) = group {
                let n = params.push(grp, Type::TEXT);
                conds.push(format!("i.grp = ${n}"));
            }
            for (key, value) in &filter.metadata {
                let nul = key.contains('\0') || value.as_str().is_some_and(|s| s.contains('\0'));
                if !nul && group_key != Some(key.as_str()) {
                    object.insert(key.clone(), value.clone());
                }
            }
            if !object.is_empty() {
                let n = params.push(serde_json::Value::Object(object), Type::JSONB);
                conds.push(format!("i.meta @> ${n}"));
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
