//! [`PostgresStore`]: the [`MemoryStore`] on PostgreSQL.

mod analyze;
pub(crate) mod context;
mod filter;
mod rows;
pub(crate) mod schema;
mod search;
mod stats;
mod write;

use std::sync::Arc;

use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::{EvictionCheck, Listing, counter_shard};
use agcore_memory::{
    EvictionConfig, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use async_trait::async_trait;
use deadpool_postgres::{Client, Pool};
use tokio_postgres::types::Type;

use crate::error::{PostgresError, Result};
use crate::retry::retry;
use analyze::AutoAnalyze;
use filter::{Params, Where};
use rows::{ITEM_COLUMNS, item_from_row};

/// A [`MemoryStore`] in PostgreSQL tables (see [`crate`] for the layout):
/// upserts with their index rows in one transaction, BM25F search computed
/// by the server over agcore's analyzer tokens — the memory's own text and,
/// for memories of a sequence, the context field of its neighbours
/// ([`ContextField`], as `InMemoryStore` and `SqliteStore` rank) — filters
/// and eviction as the trait says. Cheap to clone; `Send + Sync`. Get one
/// from [`PostgresDatabase::store`](crate::PostgresDatabase::store).
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    inner: Arc<Inner>,
}

struct Inner {
    eviction: EvictionConfig,
    /// The context field (`None`: plain BM25).
    context: Option<ContextField>,
    /// Items written since eviction was last checked.
    eviction_check: EvictionCheck,
    /// This store's row of `agcore_item_stats`.
    shard: i16,
    /// Planner statistics after bulk writes ([`analyze`]).
    analyze: Arc<AutoAnalyze>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("eviction", &self.inner.eviction)
            .field("context", &self.inner.context)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    pub(crate) fn new(pool: Pool, eviction: EvictionConfig, context: Option<ContextField>) -> Self {
        let shard = counter_shard(schema::STAT_SHARDS);
        Self {
            pool,
            inner: Arc::new(Inner {
                eviction,
                context,
                eviction_check: EvictionCheck::default(),
                shard,
                analyze: Arc::default(),
            }),
        }
    }

    /// The eviction configuration.
    pub fn eviction(&self) -> &EvictionConfig {
        &self.inner.eviction
    }

    /// The context field the store indexes (`None`: plain BM25); see
    /// [`PostgresDatabaseBuilder::context_field`](crate::PostgresDatabaseBuilder::context_field).
    pub fn context_field(&self) -> Option<&ContextField> {
        self.inner.context.as_ref()
    }

    fn window(&self) -> usize {
        context::window(self.inner.context.as_ref())
    }

    async fn client(&self) -> Result<Client> {
        Ok(self.pool.get().await?)
    }

    /// Upserts `items` in one transaction; then, when due, evicts in
    /// another (so each transaction takes its sequence locks in one order).
    /// Each runs again when the server rolls it back for a lock conflict
    /// ([`retry`]).
    async fn write_batch(&self, items: Vec<MemoryItem>) -> Result<()> {
        let rows = items.len();
        let (context, shard) = (self.inner.context.as_ref(), self.inner.shard);
        retry("memory store write", || {
            // A copy per run: the first run's items are consumed.
            let items = items.clone();
            async move {
                let mut client = self.client().await?;
                let tx = client.transaction().await?;
                write::upsert(&tx, items, context, shard).await?;
                tx.commit().await?;
                Ok(())
            }
        })
        .await?;
        self.inner.analyze.after_write(&self.pool, rows);
        if self.inner.eviction_check.due(&self.inner.eviction, rows) {
            let (policy, window) = (&self.inner.eviction.policy, self.window());
            retry("memory store eviction", || async move {
                let mut client = self.client().await?;
                let tx = client.transaction().await?;
                write::evict(&tx, policy, window, shard).await?;
                tx.commit().await?;
                Ok(())
            })
            .await?;
        }
        Ok(())
    }

    async fn select(
        &self,
        filter: &MemoryFilter,
        count_only: bool,
    ) -> Result<(Vec<MemoryItem>, usize)> {
        let mut params = Params::default();
        let cond = Where::of_list(filter, self.inner.context.as_ref(), &mut params);
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
}

#[async_trait]
impl MemoryStore for PostgresStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        Ok(self.write_batch(vec![item]).await?)
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        agcore_memory::validate_id(id)?;
        let client = self.client().await?;
        // Fixed text: prepared once per connection, one round trip a call.
        let sql = format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id = $1");
        let statement = client
            .prepare_cached(&sql)
            .await
            .map_err(PostgresError::from)?;
        let row = client
            .query_opt(&statement, &[&id])
            .await
            .map_err(PostgresError::from)?;
        Ok(row.as_ref().map(item_from_row).transpose()?)
    }

    /// One `= ANY($1)` query for every id.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            agcore_memory::validate_id(id)?;
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let client = self.client().await?;
        let sql = format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id = ANY($1)");
        let statement = client
            .prepare_cached(&sql)
            .await
            .map_err(PostgresError::from)?;
        let rows = client
            .query(&statement, &[&ids])
            .await
            .map_err(PostgresError::from)?;
        let found = rows
            .iter()
            .map(item_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(agcore_memory::items_in_order(ids, found))
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        agcore_memory::validate_id(id)?;
        let run = retry("memory store delete", || async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            write::delete(&tx, id, self.window(), self.inner.shard).await?;
            tx.commit().await?;
            Ok::<_, PostgresError>(())
        });
        Ok(run.await?)
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        filter.validate()?;
        Ok(self.select(filter, false).await?.0)
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        if items.is_empty() {
            return Ok(());
        }
        Ok(self.write_batch(items).await?)
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        filter.validate()?;
        let mut unlimited = filter.clone();
        unlimited.limit = None;
        Ok(self.select(&unlimited, true).await?.1)
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        agcore_memory::retriever::validate_search_options(options)?;
        let client = self.client().await?;
        let weight = self.inner.context.as_ref().map_or(0.0, |c| c.weight);
        Ok(search::search(&client, query, options, weight).await?)
    }
}
