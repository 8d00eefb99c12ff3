//! [`MysqlStore`]: the [`MemoryStore`] on MySQL / MariaDB.

mod context;
mod df;
mod evict;
mod filter;
mod meta;
mod rows;
pub(crate) mod schema;
mod search;
mod select;
mod stats;
mod write;

pub(crate) use context::sync as sync_context;
pub(crate) use df::sync as sync_df;
pub(crate) use meta::mark_stale;

use std::sync::Arc;

use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::{EvictionCheck, counter_shard};
use agcore_memory::{
    EvictionConfig, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use mysql_async::{Row, TxOpts, Value};

use crate::connections::Connections;
use crate::error::{MysqlError, Result, is_duplicate, is_retryable_conflict};
use agcore_memory::retry::retry_lock_conflicts;
use rows::{ITEM_COLUMNS, item_from_row};

/// A [`MemoryStore`] in MySQL or MariaDB tables (see [`crate`] for the
/// layout): upserts in one transaction each, BM25 search over a `FULLTEXT`
/// index computed by the server (BM25F with the context field of
/// neighbouring turns, see
/// [`MysqlDatabaseBuilder::context_field`](crate::MysqlDatabaseBuilder::context_field)),
/// filters and eviction as the trait says.
/// Cheap to clone; `Send + Sync`. Get one from
/// [`MysqlDatabase::store`](crate::MysqlDatabase::store).
#[derive(Clone)]
pub struct MysqlStore {
    conns: Connections,
    inner: Arc<Inner>,
}

struct Inner {
    eviction: EvictionConfig,
    writes_since_check: EvictionCheck,
    /// This store's row of `agcore_item_stats` and `agcore_context_stats`.
    shard: i16,
    /// The context field, if any.
    context: Option<ContextField>,
    /// Document-frequency rows known to exist.
    known: agcore_search::doc_freq::KnownWords,
    /// See [`crate::MysqlDatabaseBuilder::min_pruned_rows`].
    min_pruned_rows: u64,
}

impl std::fmt::Debug for MysqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlStore")
            .field("eviction", &self.inner.eviction)
            .field("context", &self.inner.context)
            .finish_non_exhaustive()
    }
}

impl MysqlStore {
    pub(crate) fn new(
        conns: Connections,
        eviction: EvictionConfig,
        (context, min_pruned_rows): (Option<ContextField>, u64),
    ) -> Self {
        let shard = counter_shard(schema::STAT_SHARDS);
        Self {
            conns,
            inner: Arc::new(Inner {
                eviction,
                writes_since_check: EvictionCheck::default(),
                shard,
                context,
                known: agcore_search::doc_freq::KnownWords::default(),
                min_pruned_rows,
            }),
        }
    }

    /// The eviction configuration.
    pub fn eviction(&self) -> &EvictionConfig {
        &self.inner.eviction
    }

    /// The context field (BM25F over neighbouring turns), if any.
    pub fn context_field(&self) -> Option<&ContextField> {
        self.inner.context.as_ref()
    }

    /// Ends a write before its commit: derives again the fields `changes`
    /// touched (nothing without a field) and writes the statistics.
    async fn finish(
        &self,
        tx: &mut mysql_async::Transaction<'_>,
        changes: context::Changes,
        mut items: stats::ItemDelta,
    ) -> Result<()> {
        let window = context::window(self.context_field());
        let context = if window == 0 {
            context::ContextDelta::default()
        } else {
            context::settle(tx, changes, window, &mut items.words).await?
        };
        stats::apply(tx, self.inner.shard, &items, context).await
    }

    async fn write_batch(&self, items: Vec<MemoryItem>) -> Result<()> {
        let evict = (self.inner.writes_since_check).due(&self.inner.eviction, items.len());
        let batch = write::prepare_batch(items, self.context_field())?;
        // A duplicate id inserted by a concurrent writer meanwhile is a
        // conflict too: the next run updates that row.
        let conflict = |err: &MysqlError| is_duplicate(err) || is_retryable_conflict(err);
        retry_lock_conflicts("mysql memory store write", conflict, || async {
            let mut conn = self.conns.get().await?;
            let words = batch.iter().map(write::Prepared::terms);
            df::create_missing(&mut conn, &self.inner.known, words).await?;
            let mut tx = conn.start_transaction(TxOpts::default()).await?;
            let mut changes = context::Changes::default();
            let mut delta = stats::ItemDelta::default();
            let field = self.context_field();
            write::upsert(&mut tx, batch.clone(), field, &mut changes, &mut delta).await?;
            if evict {
                let tracked = field.is_some().then_some(&mut changes);
                evict::evict(&mut tx, &self.inner.eviction.policy, tracked, &mut delta).await?;
            }
            self.finish(&mut tx, changes, delta).await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }
}

#[async_trait]
impl MemoryStore for MysqlStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        Ok(self.write_batch(vec![item]).await?)
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        agcore_memory::validate_id(id)?;
        let run = async {
            let mut conn = self.conns.get().await?;
            let row: Option<Row> = conn
                .exec_first(
                    format!("SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id = ?"),
                    (id.as_bytes(),),
                )
                .await?;
            row.map(|mut row| item_from_row(&mut row)).transpose()
        };
        Ok(run.await?)
    }

    /// One `IN (…)` query per 500 ids, on one pooled connection.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            agcore_memory::validate_id(id)?;
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let run = async {
            let mut conn = self.conns.get().await?;
            let mut found = Vec::with_capacity(ids.len());
            for chunk in ids.chunks(500) {
                let marks = vec!["?"; chunk.len()].join(", ");
                let params: Vec<Value> = chunk.iter().map(|id| id.as_bytes().into()).collect();
                let rows: Vec<Row> = conn
                    .exec(
                        format!(
                            "SELECT {ITEM_COLUMNS} FROM agcore_items i WHERE i.id IN ({marks})"
                        ),
                        params,
                    )
                    .await?;
                for mut row in rows {
                    found.push(item_from_row(&mut row)?);
                }
            }
            Ok::<_, crate::error::MysqlError>(agcore_memory::items_in_order(ids, found))
        };
        Ok(run.await?)
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        agcore_memory::validate_id(id)?;
        let run = retry_lock_conflicts(
            "mysql memory store delete",
            is_retryable_conflict,
            || async {
                let mut conn = self.conns.get().await?;
                let mut tx = conn.start_transaction(TxOpts::default()).await?;
                let mut changes = context::Changes::default();
                let mut delta = stats::ItemDelta::default();
                let tracked = self.context_field().is_some().then_some(&mut changes);
                write::delete(&mut tx, id, tracked, &mut delta).await?;
                self.finish(&mut tx, changes, delta).await?;
                tx.commit().await?;
                Ok(())
            },
        );
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
        let run = async {
            let mut conn = self.conns.get().await?;
            let weight = self.context_field().map_or(0.0, |c| c.weight);
            search::search(
                &mut conn,
                query,
                options,
                (weight, self.inner.min_pruned_rows),
            )
            .await
        };
        Ok(run.await?)
    }
}
