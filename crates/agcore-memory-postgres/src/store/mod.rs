//! [`PostgresStore`]: the [`MemoryStore`](agcore_memory::MemoryStore) on PostgreSQL.

mod analyze;
pub(crate) mod context;
mod filter;
mod rows;
pub(crate) mod schema;
mod search;
mod stats;
mod write;

use std::sync::Arc;

use agcore_memory::retriever::{ContextField, MAX_STORED_WINDOW};
use agcore_memory::sql_store::store::{SqlStore, StoreDriver};
use agcore_memory::sql_store::{Listing, counter_shard};
use agcore_memory::{
    EvictionConfig, EvictionPolicy, MemoryFilter, MemoryItem, ScoredItem, SearchOptions,
};
use async_trait::async_trait;
use deadpool_postgres::{Client, Pool};
use tokio_postgres::types::Type;

use crate::error::is_lock_conflict;
use crate::error::{PostgresError, Result};
use analyze::AutoAnalyze;
use filter::{Params, Where};
use rows::{ITEM_COLUMNS, item_from_row};

/// A [`MemoryStore`](agcore_memory::MemoryStore) in PostgreSQL tables (see [`crate`] for the layout):
/// upserts with their index rows in one transaction, BM25F search computed
/// by the server over agcore's analyzer tokens — the memory's own text and,
/// for memories of a sequence, the context field of its neighbours
/// ([`ContextField`], as `InMemoryStore` and `SqliteStore` rank) — filters
/// and eviction as the trait says. Cheap to clone; `Send + Sync`. Get one
/// from [`PostgresDatabase::store`](crate::PostgresDatabase::store).
///
/// Upserts run in one transaction; then, when due, eviction in another
/// (so each transaction takes its sequence locks in one order). Each runs
/// again when the server rolls it back for a lock conflict
/// ([`retry_lock_conflicts`](agcore_memory::retry::retry_lock_conflicts)). The context field is
/// [`PostgresDatabaseBuilder::context_field`](crate::PostgresDatabaseBuilder::context_field).
pub type PostgresStore = SqlStore<PostgresStoreDriver>;

/// The PostgreSQL driver of [`PostgresStore`]: a connection pool, its
/// transactions and PostgreSQL's SQL for the shared store ([`StoreDriver`]).
pub struct PostgresStoreDriver {
    pool: Pool,
    /// The context field (`None`: plain BM25).
    context: Option<ContextField>,
    /// This store's row of `agcore_item_stats`.
    shard: i16,
    /// Planner statistics after bulk writes ([`analyze`]).
    analyze: Arc<AutoAnalyze>,
}

/// The memory store on `pool`.
pub(crate) fn store(
    pool: Pool,
    eviction: EvictionConfig,
    context: Option<ContextField>,
) -> PostgresStore {
    let driver = PostgresStoreDriver {
        pool,
        context,
        shard: counter_shard(schema::STAT_SHARDS),
        analyze: Arc::default(),
    };
    SqlStore::new(driver, eviction)
}

impl PostgresStoreDriver {
    fn window(&self) -> usize {
        ContextField::stored_window(self.context.as_ref(), MAX_STORED_WINDOW)
    }

    async fn client(&self) -> Result<Client> {
        Ok(self.pool.get().await?)
    }
}

#[async_trait]
impl StoreDriver for PostgresStoreDriver {
    type Error = PostgresError;
    type Batch = Vec<MemoryItem>;
    const NAME: &'static str = "PostgresStore";
    const EVICTS_IN_WRITE: bool = false;

    fn context(&self) -> Option<&ContextField> {
        self.context.as_ref()
    }

    fn is_lock_conflict(&self, err: &PostgresError) -> bool {
        is_lock_conflict(err)
    }

    fn prepare(&self, items: Vec<MemoryItem>) -> Result<Vec<MemoryItem>> {
        Ok(items)
    }

    async fn upsert(&self, items: &Vec<MemoryItem>, _: Option<&EvictionPolicy>) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // A copy per run: the first run's items are consumed.
        write::upsert(&tx, items.clone(), self.context.as_ref(), self.shard).await?;
        tx.commit().await?;
        Ok(())
    }

    fn after_write(&self, rows: usize) {
        self.analyze.after_write(&self.pool, rows);
    }

    async fn evict(&self, policy: &EvictionPolicy) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        write::evict(&tx, policy, self.window(), self.shard).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        write::delete(&tx, id, self.window(), self.shard).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn select(
        &self,
        filter: &MemoryFilter,
        count_only: bool,
    ) -> Result<(Vec<MemoryItem>, usize)> {
        let mut params = Params::default();
        let cond = Where::of_list(filter, self.context.as_ref(), &mut params);
        let listing = Listing {
            filter,
            exact: cond.exact,
            count_only,
        };
        let client = self.client().await?;
        if listing.counts_in_sql() {
            let sql = format!("SELECT count(*) FROM agcore_items i WHERE {}", cond.sql);
            let n: i64 = client
                .query_typed_one(&sql, &params.typed())
                .await?
                .try_get(0)?;
            return Ok((Vec::new(), usize::try_from(n).unwrap_or(0)));
        }
        let limit = match listing.sql_limit() {
            Some(limit) => {
                let n = params.push(i64::try_from(limit).unwrap_or(i64::MAX), Type::INT8);
                format!("LIMIT ${n}")
            }
            None => String::new(),
        };
        let sql = format!(
            "SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE {} ORDER BY i.created_s, i.created_ns, i.id {limit}",
            cond.sql
        );
        let rows = client.query_typed(&sql, &params.typed()).await?;
        let items = rows.iter().map(item_from_row).collect::<Result<_>>()?;
        Ok(listing.finish(items))
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>> {
        let client = self.client().await?;
        // Fixed text: prepared once per connection, one round trip a call.
        let sql = format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id = $1");
        let statement = client.prepare_cached(&sql).await?;
        let row = client.query_opt(&statement, &[&id]).await?;
        row.as_ref().map(item_from_row).transpose()
    }

    /// One `= ANY($1)` query for every id.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<MemoryItem>> {
        let client = self.client().await?;
        let sql = format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id = ANY($1)");
        let statement = client.prepare_cached(&sql).await?;
        let rows = client.query(&statement, &[&ids]).await?;
        rows.iter().map(item_from_row).collect()
    }

    async fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<ScoredItem>> {
        let client = self.client().await?;
        let weight = self.context.as_ref().map_or(0.0, |c| c.weight);
        search::search(&client, query, options, weight).await
    }
}
