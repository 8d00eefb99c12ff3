//! [`MysqlStore`]: the [`MemoryStore`](agcore_memory::MemoryStore) on MySQL / MariaDB.

mod context;
mod df;
mod evict;
mod filter;
mod meta;
mod rows;
pub(crate) mod schema;
mod search;
mod stats;
mod write;

pub(crate) use context::sync as sync_context;
pub(crate) use df::sync as sync_df;
pub(crate) use meta::mark_stale;

use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::store::{SqlStore, StoreDriver};
use agcore_memory::sql_store::{Listing, counter_shard};
use agcore_memory::{
    EvictionConfig, EvictionPolicy, MemoryFilter, MemoryItem, ScoredItem, SearchOptions,
};
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, TxOpts, Value};

use crate::connections::Connections;
use crate::error::{MysqlError, Result, is_duplicate, is_retryable_conflict};
use filter::Where;
use rows::{ITEM_COLUMNS, item_from_row};

/// A [`MemoryStore`](agcore_memory::MemoryStore) in MySQL or MariaDB tables (see [`crate`] for the
/// layout): upserts in one transaction each, BM25 search over a `FULLTEXT`
/// index computed by the server (BM25F with the context field of
/// neighbouring turns, see
/// [`MysqlDatabaseBuilder::context_field`](crate::MysqlDatabaseBuilder::context_field)),
/// filters and eviction as the trait says.
/// Cheap to clone; `Send + Sync`. Get one from
/// [`MysqlDatabase::store`](crate::MysqlDatabase::store).
pub type MysqlStore = SqlStore<MysqlStoreDriver>;

/// The MySQL / MariaDB driver of [`MysqlStore`]: pooled connections, their
/// transactions and MySQL's SQL for the shared store ([`StoreDriver`]).
pub struct MysqlStoreDriver {
    conns: Connections,
    /// This store's row of `agcore_item_stats` and `agcore_context_stats`.
    shard: i16,
    /// The context field, if any.
    context: Option<ContextField>,
    /// Document-frequency rows known to exist.
    known: agcore_search::doc_freq::KnownWords,
    /// See [`crate::MysqlDatabaseBuilder::min_pruned_rows`].
    min_pruned_rows: u64,
}

/// The memory store on `conns`.
pub(crate) fn store(
    conns: Connections,
    eviction: EvictionConfig,
    (context, min_pruned_rows): (Option<ContextField>, u64),
) -> MysqlStore {
    let driver = MysqlStoreDriver {
        conns,
        shard: counter_shard(schema::STAT_SHARDS),
        context,
        known: agcore_search::doc_freq::KnownWords::default(),
        min_pruned_rows,
    };
    SqlStore::new(driver, eviction)
}

impl MysqlStoreDriver {
    fn context_field(&self) -> Option<&ContextField> {
        self.context.as_ref()
    }

    /// Ends a write before its commit: derives again the fields `changes`
    /// touched (nothing without a field) and writes the statistics.
    async fn finish(
        &self,
        tx: &mut mysql_async::Transaction<'_>,
        changes: context::Changes,
        mut items: stats::ItemDelta,
    ) -> Result<()> {
        let window = ContextField::stored_window(self.context_field(), context::MAX_WINDOW);
        let context = if window == 0 {
            context::ContextDelta::default()
        } else {
            context::settle(tx, changes, window, &mut items.words).await?
        };
        stats::apply(tx, self.shard, &items, context).await
    }
}

#[async_trait]
impl StoreDriver for MysqlStoreDriver {
    type Error = MysqlError;
    type Batch = Vec<write::Prepared>;
    const NAME: &'static str = "MysqlStore";
    const EVICTS_IN_WRITE: bool = true;

    fn context(&self) -> Option<&ContextField> {
        self.context.as_ref()
    }

    fn is_lock_conflict(&self, err: &MysqlError) -> bool {
        is_retryable_conflict(err)
    }

    /// A duplicate id inserted by a concurrent writer meanwhile is a
    /// conflict too: the next run updates that row.
    fn is_write_conflict(&self, err: &MysqlError) -> bool {
        is_duplicate(err) || is_retryable_conflict(err)
    }

    fn prepare(&self, items: Vec<MemoryItem>) -> Result<Vec<write::Prepared>> {
        write::prepare_batch(items, self.context_field())
    }

    async fn upsert(
        &self,
        batch: &Vec<write::Prepared>,
        evict: Option<&EvictionPolicy>,
    ) -> Result<()> {
        let mut conn = self.conns.get().await?;
        let words = batch.iter().map(write::Prepared::terms);
        df::create_missing(&mut conn, &self.known, words).await?;
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        let mut changes = context::Changes::default();
        let mut delta = stats::ItemDelta::default();
        let field = self.context_field();
        write::upsert(&mut tx, batch.clone(), field, &mut changes, &mut delta).await?;
        if let Some(policy) = evict {
            let tracked = field.is_some().then_some(&mut changes);
            evict::evict(&mut tx, policy, tracked, &mut delta).await?;
        }
        self.finish(&mut tx, changes, delta).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<()> {
        let mut conn = self.conns.get().await?;
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        let mut changes = context::Changes::default();
        let mut delta = stats::ItemDelta::default();
        let tracked = self.context_field().is_some().then_some(&mut changes);
        write::delete(&mut tx, id, tracked, &mut delta).await?;
        self.finish(&mut tx, changes, delta).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn select(
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

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>> {
        let mut conn = self.conns.get().await?;
        let row: Option<Row> = conn
            .exec_first(
                format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id = ?"),
                (id.as_bytes(),),
            )
            .await?;
        row.map(|mut row| item_from_row(&mut row)).transpose()
    }

    /// One `IN (…)` query per 500 ids, on one pooled connection.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<MemoryItem>> {
        let mut conn = self.conns.get().await?;
        let mut found = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let params: Vec<Value> = chunk.iter().map(|id| id.as_bytes().into()).collect();
            let rows: Vec<Row> = conn
                .exec(
                    format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id IN ({marks})"),
                    params,
                )
                .await?;
            for mut row in rows {
                found.push(item_from_row(&mut row)?);
            }
        }
        Ok(found)
    }

    async fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<ScoredItem>> {
        let mut conn = self.conns.get().await?;
        let weight = self.context_field().map_or(0.0, |c| c.weight);
        let limits = (weight, self.min_pruned_rows);
        search::search(&mut conn, query, options, limits).await
    }
}
