//! Re-indexing a SQL backend's full-text component with this library's
//! analyzer, once for every backend: each component records the analyzer
//! that built its index; when it is not [`ANALYZER_ID`], [`run`] reads its
//! rows in key order, [`Reindex::batch`] at a time (keyset batches: the
//! next batch starts after the last key read), re-tokenises each row's
//! text with [`index_terms`], hands the batch to the driver with each
//! group's change in total length (a long-term scope's; `0` for the store),
//! then records the new analyzer (the decision and record are the shared
//! [`crate::rebuild`]).
//!
//! A driver implements [`Reindex`] with its SQL. Each batch is computed
//! from the row's stored text and current length, so a run cut short (the
//! old analyzer still recorded) is simply done again on the next open:
//! re-indexing is idempotent.

use std::collections::BTreeMap;
use std::future::Future;

use agcore_search::collection::term_counts;
use agcore_search::{ANALYZER_ID, index_terms};

use crate::rebuild::{self, Rebuild};

/// A row as read for re-indexing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReindexRow {
    /// The row's key; batches follow it in ascending order.
    pub key: i64,
    /// The group whose total length the row counts in (a long-term
    /// scope's id; `0` for the store).
    pub group: i64,
    /// The text the row is indexed by.
    pub text: String,
    /// The row's length as recorded (analyzer tokens with repeats).
    pub len: i64,
}

/// A row re-tokenised: its key and group, its analyzer tokens in order,
/// and its new length (their number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reindexed {
    /// The row's key.
    pub key: i64,
    /// The row's group (see [`ReindexRow::group`]).
    pub group: i64,
    /// The index terms of the row's text ([`index_terms`]).
    pub tokens: Vec<String>,
    /// `tokens.len()`, saturated to `i64`.
    pub len: i64,
}

impl Reindexed {
    /// Every row's postings as columns, row by row and each row's terms in
    /// order: `(groups, terms, keys, term frequencies, row lengths)`.
    pub fn postings(rows: &[Self]) -> Postings {
        let mut out = Postings::default();
        for row in rows {
            let len = i32::try_from(row.len).unwrap_or(i32::MAX);
            for (term, tf) in term_counts(row.tokens.clone()) {
                out.groups.push(row.group);
                out.terms.push(term);
                out.keys.push(row.key);
                out.tfs.push(tf);
                out.lens.push(len);
            }
        }
        out
    }
}

/// Postings as columns, one entry per (row, distinct term), for drivers
/// that write them as arrays.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Postings {
    /// Each posting's row group.
    pub groups: Vec<i64>,
    /// Each posting's term.
    pub terms: Vec<String>,
    /// Each posting's row key.
    pub keys: Vec<i64>,
    /// Each posting's term frequency in its row.
    pub tfs: Vec<i32>,
    /// Each posting's row length (saturated to `i32`).
    pub lens: Vec<i32>,
}

/// One component's re-index in a driver's SQL.
pub trait Reindex: Send {
    /// The driver's error.
    type Error: Send;

    /// The backend and component, for the log (`"mysql"`, `"store"`).
    fn names(&self) -> (&'static str, &'static str);

    /// Rows read and written per batch.
    fn batch(&self) -> i64;

    /// The analyzer recorded for the component, if any.
    fn recorded(&mut self) -> impl Future<Output = Result<Option<String>, Self::Error>> + Send;

    /// Prepares a re-index (locks, emptied postings); nothing by default.
    fn begin(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        async { Ok(()) }
    }

    /// Up to `limit` rows whose key is above `after`, in key order.
    fn read(
        &mut self,
        after: i64,
        limit: i64,
    ) -> impl Future<Output = Result<Vec<ReindexRow>, Self::Error>> + Send;

    /// Writes a batch: the rows' new terms and lengths, and `deltas`, each
    /// group's change in total length.
    fn write(
        &mut self,
        rows: Vec<Reindexed>,
        deltas: BTreeMap<i64, i64>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Runs after the last batch, before the analyzer is recorded
    /// (marking derived data stale); nothing by default.
    fn finish(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        async { Ok(()) }
    }

    /// Records `analyzer` as the one that built the component.
    fn record(&mut self, analyzer: &str) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// `rows` re-tokenised, and each group's change in total length.
pub fn retokenise(rows: Vec<ReindexRow>) -> (Vec<Reindexed>, BTreeMap<i64, i64>) {
    let mut deltas = BTreeMap::new();
    let rows = rows
        .into_iter()
        .map(|row| {
            let tokens = index_terms(&row.text);
            let len = i64::try_from(tokens.len()).unwrap_or(i64::MAX);
            *deltas.entry(row.group).or_insert(0) += len - row.len;
            Reindexed {
                key: row.key,
                group: row.group,
                tokens,
                len,
            }
        })
        .collect();
    (rows, deltas)
}

/// Re-indexes `component` unless its recorded analyzer is
/// [`ANALYZER_ID`] (the shared decision, [`rebuild::run`]); whether it did.
///
/// # Errors
/// The driver's, from any step; the analyzer is then not recorded.
pub async fn run<R: Reindex>(component: &mut R) -> Result<bool, R::Error> {
    rebuild::run(&mut Retokenising(component), ANALYZER_ID).await
}

/// A component re-indexed as a [`Rebuild`]: its rows read in key order,
/// re-tokenised and written back batch by batch.
struct Retokenising<'a, R>(&'a mut R);

impl<R: Reindex> Rebuild for Retokenising<'_, R> {
    type Error = R::Error;

    fn names(&self) -> (&'static str, &'static str) {
        self.0.names()
    }

    async fn recorded(&mut self) -> Result<Option<String>, R::Error> {
        self.0.recorded().await
    }

    async fn rebuild(&mut self) -> Result<(), R::Error> {
        let component = &mut *self.0;
        component.begin().await?;
        let mut after = i64::MIN;
        loop {
            let rows = component.read(after, component.batch()).await?;
            let Some(last) = rows.last().map(|r| r.key) else {
                break;
            };
            let (rows, deltas) = retokenise(rows);
            component.write(rows, deltas).await?;
            after = last;
        }
        component.finish().await
    }

    async fn record(&mut self, wanted: &str) -> Result<(), R::Error> {
        self.0.record(wanted).await
    }
}

#[cfg(test)]
mod tests;
