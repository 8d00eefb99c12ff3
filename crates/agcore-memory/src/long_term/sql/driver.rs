//! [`SqlDriver`]: what a SQL driver gives [`SqlLongTerm`](super::SqlLongTerm)
//! — its connections, transactions and retry rule over its
//! [`LongTermRows`], and its search.

use async_trait::async_trait;
use futures::future::BoxFuture;

use chrono::{DateTime, Utc};

use super::super::backend::{ListRequest, MaintenanceReport, ScoredEntry, SearchRequest};
use super::super::changes::{MemoryUpdate, NewMemory};
use super::super::dedupe::{Duplicate, TermSet};
use super::super::scope::MemoryScope;
use super::super::weights::WeightRules;
use super::rows::LongTermRows;
use super::{entries, flows};
use crate::MemoryError;

/// The rows of one connection or transaction of a driver with error `E`.
pub type Rows<'t, E> = dyn LongTermRows<Error = E> + 't;

/// Work on the rows of one connection or transaction; called once per run
/// (again when the driver reruns it after a lock conflict), so it owns
/// clones of its inputs.
pub type Work<E, T> =
    Box<dyn for<'t> Fn(&'t mut Rows<'t, E>) -> BoxFuture<'t, Result<T, E>> + Send + Sync>;

/// `work` boxed as a [`Work`] (the closure's signature is inferred here).
pub fn work<E, T, F>(work: F) -> Work<E, T>
where
    F: for<'t> Fn(&'t mut Rows<'t, E>) -> BoxFuture<'t, Result<T, E>> + Send + Sync + 'static,
{
    Box::new(work)
}

/// What a write transaction is about to change, for a driver that
/// prepares rows before it begins (MySQL creates the rows of new words
/// then, so the transaction locks no gaps).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum WriteIntent<'a> {
    /// A save of `new` into `scope` at `now` under `rules`.
    Save {
        /// The scope saved into.
        scope: &'a MemoryScope,
        /// The memory saved.
        new: &'a NewMemory,
        /// The weight rules of the save.
        rules: &'a WeightRules,
        /// The time of the save.
        now: chrono::DateTime<chrono::Utc>,
    },
    /// An update of an entry of `scope`.
    Update {
        /// The scope of the entry.
        scope: &'a MemoryScope,
        /// The change.
        update: &'a MemoryUpdate,
    },
    /// Any other write (delete, usage, maintenance, import): nothing to prepare.
    Other,
}

/// A call outside a write transaction, for the driver's retry rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// Reads only.
    Read,
    /// One statement that updates rows (may run again after a lock conflict).
    Update,
    /// One statement that inserts a row (never run again: it would insert twice).
    Insert,
}

/// A SQL driver of long-term memory: its pooled connections, transactions
/// and retry rule over its [`LongTermRows`], and its search.
/// [`SqlLongTerm`](super::SqlLongTerm) runs the flows of
/// [`flows`](super::flows) on it.
#[async_trait]
pub trait SqlDriver: Send + Sync + std::fmt::Debug + 'static {
    /// The driver's error.
    type Error: From<MemoryError> + Into<MemoryError> + Send + 'static;

    /// Runs `work` in one transaction on a pooled connection (after the
    /// driver's preparation for `intent`), committed when it succeeds and
    /// rolled back when it fails; runs it all again while the database
    /// rolls it back for a lock conflict.
    ///
    /// # Errors
    /// [`MemoryError`] from `work` or the database.
    async fn write<T: Send + 'static>(
        &self,
        intent: WriteIntent<'_>,
        work: Work<Self::Error, T>,
    ) -> Result<T, MemoryError>;

    /// Runs `work` on a pooled connection outside a transaction, again
    /// after a lock conflict when the driver's rule for `access` says so.
    ///
    /// # Errors
    /// [`MemoryError`] from `work` or the database.
    async fn run<T: Send + 'static>(
        &self,
        access: Access,
        work: Work<Self::Error, T>,
    ) -> Result<T, MemoryError>;

    /// [`LongTermBackend::search`](super::super::LongTermBackend::search).
    ///
    /// # Errors
    /// [`MemoryError`] from the database.
    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError>;

    /// Releases the driver's connections; later calls fail with
    /// [`MemoryError::Storage`].
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when closing fails.
    async fn close(&self) -> Result<(), MemoryError>;

    /// [`LongTermBackend::maintenance`](super::super::LongTermBackend::maintenance).
    /// Provided: [`flows::maintenance`] (every active entry loaded, aged
    /// and stored back) in one write transaction; a driver may override it
    /// with set-based statements.
    ///
    /// # Errors
    /// [`MemoryError`] from the database.
    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        row_by_row_maintenance(self, scope, rules, now, purge_before).await
    }

    /// [`LongTermBackend::supersede_duplicates`](super::super::LongTermBackend::supersede_duplicates).
    /// Provided: [`flows::supersede_duplicates`] in one write transaction.
    ///
    /// # Errors
    /// [`MemoryError`] from the database; nothing is archived then.
    async fn supersede_duplicates(
        &self,
        scope: &MemoryScope,
        duplicates: &[Duplicate],
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let (scope, rules, duplicates) = (scope.clone(), *rules, duplicates.to_vec());
        let work = work(move |rows| {
            let (scope, duplicates) = (scope.clone(), duplicates.clone());
            Box::pin(async move {
                flows::supersede_duplicates(rows, &scope, &duplicates, &rules, now).await
            })
        });
        self.write(WriteIntent::Other, work).await
    }

    /// [`LongTermBackend::dedupe_terms`](super::super::LongTermBackend::dedupe_terms).
    /// Provided: every entry of `scope` listed and analyzed
    /// ([`TermSet::of`]); a driver that stores the analyzed terms may read
    /// them instead.
    ///
    /// # Errors
    /// [`MemoryError`] from the database.
    async fn dedupe_terms(&self, scope: &MemoryScope) -> Result<Vec<TermSet>, MemoryError> {
        let scope = scope.clone();
        let work = work(move |rows| {
            let scope = scope.clone();
            Box::pin(async move { entries::list(rows, &scope, &ListRequest::all(), false).await })
        });
        let entries = self.run(Access::Read, work).await?;
        Ok(entries.iter().map(TermSet::of).collect())
    }
}

/// [`flows::maintenance`] (every active entry of `scope` loaded, aged and
/// stored back) in one write transaction of `driver`: what
/// [`SqlDriver::maintenance`] provides, kept callable for a driver that
/// overrides it (as the reference its own statements are checked against).
///
/// # Errors
/// [`MemoryError`] from the database.
pub async fn row_by_row_maintenance<D: SqlDriver + ?Sized>(
    driver: &D,
    scope: &MemoryScope,
    rules: &WeightRules,
    now: DateTime<Utc>,
    purge_before: DateTime<Utc>,
) -> Result<MaintenanceReport, MemoryError> {
    let (scope, rules) = (scope.clone(), *rules);
    let work = work(move |rows| {
        let scope = scope.clone();
        Box::pin(async move { flows::maintenance(rows, &scope, &rules, now, purge_before).await })
    });
    driver.write(WriteIntent::Other, work).await
}
