//! [`StoreDriver`]: what a SQL driver gives [`SqlStore`](super::SqlStore)
//! — its transactions over its SQL, its reads, its search and its rule of
//! which errors are lock conflicts.

use async_trait::async_trait;

use crate::retriever::ContextField;
use crate::{EvictionPolicy, MemoryError, MemoryFilter, MemoryItem, ScoredItem, SearchOptions};

/// A SQL driver of the [`MemoryStore`](crate::MemoryStore): each write one
/// transaction on a pooled connection, committed when it succeeds;
/// [`SqlStore`](super::SqlStore) validates the input, runs a write again
/// while it fails with a lock conflict and decides when eviction runs.
/// The items a driver is given are validated.
#[async_trait]
pub trait StoreDriver: Send + Sync + 'static {
    /// The driver's error.
    type Error: From<MemoryError> + Into<MemoryError> + std::fmt::Display + Send + Sync + 'static;

    /// A batch of items ready to write ([`prepare`](Self::prepare)), used
    /// by every run of its transaction.
    type Batch: Send + Sync;

    /// The store's name in its `Debug` output, e.g. `"PostgresStore"`.
    const NAME: &'static str;

    /// Whether eviction runs in the transaction of the write that makes it
    /// due ([`upsert`](Self::upsert) is told so before it runs), or after
    /// that write's commit in a transaction of its own ([`evict`](Self::evict)).
    const EVICTS_IN_WRITE: bool;

    /// The context field the store indexes (`None`: plain BM25).
    fn context(&self) -> Option<&ContextField>;

    /// Whether `err` is a lock conflict after which a delete or an
    /// eviction runs again.
    fn is_lock_conflict(&self, err: &Self::Error) -> bool;

    /// Whether `err` is a conflict after which an upsert runs again (by
    /// default a lock conflict).
    fn is_write_conflict(&self, err: &Self::Error) -> bool {
        self.is_lock_conflict(err)
    }

    /// `items` (validated, at least one) ready to write, done once however
    /// often the transaction runs.
    ///
    /// # Errors
    /// The driver's error for an item it cannot write.
    fn prepare(&self, items: Vec<MemoryItem>) -> Result<Self::Batch, Self::Error>;

    /// Upserts `batch` in one transaction (the last of several items with
    /// one id wins, as if saved in order); with `evict` (only when
    /// [`EVICTS_IN_WRITE`](Self::EVICTS_IN_WRITE)) applies that policy in
    /// the same transaction.
    ///
    /// # Errors
    /// The driver's error from the database; the transaction is rolled back.
    async fn upsert(
        &self,
        batch: &Self::Batch,
        evict: Option<&EvictionPolicy>,
    ) -> Result<(), Self::Error>;

    /// Called after each committed upsert of `rows` items (e.g. to refresh
    /// the planner's statistics); by default nothing.
    fn after_write(&self, rows: usize) {
        let _ = rows;
    }

    /// Applies `policy` in one transaction of its own (only when not
    /// [`EVICTS_IN_WRITE`](Self::EVICTS_IN_WRITE); by default nothing).
    ///
    /// # Errors
    /// The driver's error from the database or for a policy it does not
    /// support.
    async fn evict(&self, policy: &EvictionPolicy) -> Result<(), Self::Error> {
        let _ = policy;
        Ok(())
    }

    /// Deletes the item `id` (if stored) in one transaction.
    ///
    /// # Errors
    /// The driver's error from the database.
    async fn delete(&self, id: &str) -> Result<(), Self::Error>;

    /// The items passing `filter` (validated) in list order, its limit
    /// applied unless `count_only`, and how many; when `count_only` and the
    /// SQL selects exactly the filter's items, only the count
    /// ([`Listing`](crate::sql_store::Listing)).
    ///
    /// # Errors
    /// The driver's error from the database.
    async fn select(
        &self,
        filter: &MemoryFilter,
        count_only: bool,
    ) -> Result<(Vec<MemoryItem>, usize), Self::Error>;

    /// The stored item `id`.
    ///
    /// # Errors
    /// The driver's error from the database.
    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, Self::Error>;

    /// The stored items of `ids` (at least one), in any order.
    ///
    /// # Errors
    /// The driver's error from the database.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<MemoryItem>, Self::Error>;

    /// [`MemoryStore::search`](crate::MemoryStore::search) with validated
    /// `options`.
    ///
    /// # Errors
    /// The driver's error from the database.
    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, Self::Error>;
}
