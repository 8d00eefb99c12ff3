//! Listing and counting: a [`MemoryFilter`] as SQL, in list order
//! (`created_at`, then id).

use agcore_memory::sql_store::Listing;
use agcore_memory::{MemoryFilter, MemoryItem};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Value};

use super::MysqlStoreDriver;
use super::filter::Where;
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::error::Result;

impl MysqlStoreDriver {
    /// The items passing `filter` in list order (its limit applied unless
    /// `count_only`) and how many; when `count_only` and the SQL selects
    /// exactly the filter's items, only the count.
    pub(super) async fn select_items(
        &self,
        filter: &MemoryFilter,
        count_only: bool,
    ) -> Result<(Vec<MemoryItem>, usize)> {
        let cond = Where::of(filter);
        let listing = Listing {
            filter,
            exact: cond.exact,
            count_only,
        };
        let mut params = cond.params.clone();
        let mut conn = self.conns.get().await?;
        if listing.counts_in_sql() {
            let sql = format!("SELECT COUNT(*) FROM agcore_items i WHERE {}", cond.sql);
            let n: Option<i64> = conn.exec_first(sql, Params::Positional(params)).await?;
            return Ok((Vec::new(), usize::try_from(n.unwrap_or(0)).unwrap_or(0)));
        }
        let limit = match listing.sql_limit() {
            Some(limit) => {
                params.push(Value::Int(i64::try_from(limit).unwrap_or(i64::MAX)));
                "LIMIT ?"
            }
            None => "",
        };
        let sql = format!(
            "SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE {} ORDER BY i.created_s, i.created_ns, i.id {limit}",
            cond.sql
        );
        let rows: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
        let items = rows
            .into_iter()
            .map(|mut row| item_from_row(&mut row))
            .collect::<Result<Vec<_>>>()?;
        Ok(listing.finish(items))
    }
}
