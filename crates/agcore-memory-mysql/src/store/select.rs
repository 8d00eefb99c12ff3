//! Listing and counting: a [`MemoryFilter`] as SQL, in list order
//! (`created_at`, then id).

use agcore_memory::{MemoryFilter, MemoryItem};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};

use super::MysqlStore;
use super::filter::Where;
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::error::Result;

impl MysqlStore {
    /// The items passing `filter` in list order (its limit applied unless
    /// `count_only`) and how many; when `count_only` and the SQL selects
    /// exactly the filter's items, only the count.
    pub(super) async fn select(
        &self,
        filter: &MemoryFilter,
        count_only: bool,
    ) -> Result<(Vec<MemoryItem>, usize)> {
        let cond = Where::of(filter);
        let mut params = cond.params.clone();
        let mut conn = self.conns.get().await?;
        if count_only && cond.exact {
            let sql = format!("SELECT COUNT(*) FROM agcore_items i WHERE {}", cond.sql);
            let n: Option<i64> = conn.exec_first(sql, Params::Positional(params)).await?;
            return Ok((Vec::new(), usize::try_from(n.unwrap_or(0)).unwrap_or(0)));
        }
        let limit = match filter.limit {
            Some(limit) if cond.exact && !count_only => {
                params.push(Value::Int(i64::try_from(limit).unwrap_or(i64::MAX)));
                "LIMIT ?"
            }
            _ => "",
        };
        let sql = format!(
            "SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE {} ORDER BY i.created_s, i.created_ns, i.id {limit}",
            cond.sql
        );
        let rows: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
        let mut items = Vec::new();
        for mut row in rows {
            let item = item_from_row(&mut row)?;
            if cond.exact || filter.matches(&item) {
                items.push(item);
            }
        }
        if !count_only && let Some(limit) = filter.limit {
            items.truncate(limit);
        }
        let n = items.len();
        Ok((items, n))
    }
}
