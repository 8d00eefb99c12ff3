//! [`SqlStore`]: the [`MemoryStore`] over a [`StoreDriver`].

use std::sync::Arc;

use async_trait::async_trait;

use super::StoreDriver;
use crate::retriever::{ContextField, validate_search_options};
use crate::retry::retry_lock_conflicts;
use crate::sql_store::EvictionCheck;
use crate::{
    EvictionConfig, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};

/// A [`MemoryStore`] on a SQL database through the driver `D`: the
/// validation, retries, eviction scheduling and ordering of every SQL
/// store, over `D`'s transactions, SQL and search. Cheap to clone (one
/// `Arc`); `Send + Sync`.
pub struct SqlStore<D> {
    shared: Arc<Shared<D>>,
}

struct Shared<D> {
    driver: D,
    eviction: EvictionConfig,
    /// Items written since eviction was last checked.
    eviction_check: EvictionCheck,
}

impl<D> Clone for SqlStore<D> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<D: StoreDriver> std::fmt::Debug for SqlStore<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(D::NAME)
            .field("eviction", &self.shared.eviction)
            .field("context", &self.shared.driver.context())
            .finish_non_exhaustive()
    }
}

impl<D: StoreDriver> SqlStore<D> {
    /// A store on `driver` evicting by `eviction`.
    pub fn new(driver: D, eviction: EvictionConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                driver,
                eviction,
                eviction_check: EvictionCheck::default(),
            }),
        }
    }

    /// The eviction configuration.
    pub fn eviction(&self) -> &EvictionConfig {
        &self.shared.eviction
    }

    /// The context field the store indexes (`None`: plain BM25).
    pub fn context_field(&self) -> Option<&ContextField> {
        self.shared.driver.context()
    }

    /// The driver.
    pub fn driver(&self) -> &D {
        &self.shared.driver
    }

    /// Upserts `items` (validated, at least one) in one transaction; when
    /// eviction is due, evicts in that transaction or after its commit in
    /// another, as `D` says. Each transaction runs again while it fails
    /// with a conflict.
    async fn write_batch(&self, items: Vec<MemoryItem>) -> Result<(), D::Error> {
        let Shared {
            driver,
            eviction,
            eviction_check,
        } = &*self.shared;
        let rows = items.len();
        let evict =
            (D::EVICTS_IN_WRITE && eviction_check.due(eviction, rows)).then_some(&eviction.policy);
        let batch = driver.prepare(items)?;
        let conflict = |err: &D::Error| driver.is_write_conflict(err);
        retry_lock_conflicts("memory store write", conflict, || {
            driver.upsert(&batch, evict)
        })
        .await?;
        driver.after_write(rows);
        if !D::EVICTS_IN_WRITE && eviction_check.due(eviction, rows) {
            let conflict = |err: &D::Error| driver.is_lock_conflict(err);
            retry_lock_conflicts("memory store eviction", conflict, || {
                driver.evict(&eviction.policy)
            })
            .await?;
        }
        Ok(())
    }
}

#[async_trait]
impl<D: StoreDriver> MemoryStore for SqlStore<D> {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        self.write_batch(vec![item]).await.map_err(Into::into)
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        crate::validate_id(id)?;
        self.shared.driver.get(id).await.map_err(Into::into)
    }

    /// One query (or one per chunk of ids) for every id.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            crate::validate_id(id)?;
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found = self.shared.driver.get_many(ids).await.map_err(Into::into)?;
        Ok(crate::items_in_order(ids, found))
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        crate::validate_id(id)?;
        let driver = &self.shared.driver;
        let conflict = |err: &D::Error| driver.is_lock_conflict(err);
        retry_lock_conflicts("memory store delete", conflict, || driver.delete(id))
            .await
            .map_err(Into::into)
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        filter.validate()?;
        let listed = self.shared.driver.select(filter, false).await;
        Ok(listed.map_err(Into::into)?.0)
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        if items.is_empty() {
            return Ok(());
        }
        self.write_batch(items).await.map_err(Into::into)
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        filter.validate()?;
        let mut unlimited = filter.clone();
        unlimited.limit = None;
        let counted = self.shared.driver.select(&unlimited, true).await;
        Ok(counted.map_err(Into::into)?.1)
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        validate_search_options(options)?;
        let found = self.shared.driver.search(query, options).await;
        found.map_err(Into::into)
    }
}
