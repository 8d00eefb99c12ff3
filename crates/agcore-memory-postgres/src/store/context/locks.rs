//! One transaction advisory lock per sequence: a write takes the locks of
//! every sequence it may change (the new sequences of the items it saves,
//! the stored ones of the items it replaces or deletes) before it changes
//! rows, in one order (by key), so two writers of one sequence run one after
//! the other and the second derives its fields from the first's committed
//! rows. A sequence found only after the rows changed (moved by another
//! writer meanwhile) is locked then ([`Locked::ensure`]; two writers doing
//! so at once may deadlock, which the server breaks by failing one with a
//! recoverable error).

use std::collections::HashSet;

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use crate::error::Result;

/// The sequences whose locks this transaction holds.
#[derive(Debug, Default)]
pub(crate) struct Locked(HashSet<String>);

/// The statement locking the sequences of its last parameter (a text
/// array) and those of the rows `stored` selects (a condition on
/// `agcore_items i` with parameters `$1 … $n`, `n` = `params`; `None`: no
/// stored rows); it returns the sequences locked.
///
/// # Errors
/// [`crate::PostgresError`] from the server.
pub(crate) async fn lock_statement(
    tx: &Transaction<'_>,
    stored: Option<&str>,
    params: usize,
) -> Result<Statement> {
    // The locks are taken in key order: the sorted subquery feeds the
    // projection row by row.
    let sql = format!(
        "SELECT s.g, pg_advisory_xact_lock(s.k)::text FROM (
             SELECT DISTINCT x.g, hashtextextended('agcore_group:' || current_schema() || ':' || x.g, 0) AS k
             FROM (SELECT unnest(${}::text[]) AS g
                   UNION SELECT i.grp FROM agcore_items i WHERE i.grp IS NOT NULL AND ({})) x
             ORDER BY k
         ) s",
        params + 1,
        stored.unwrap_or("FALSE"),
    );
    Ok(tx.prepare_cached(&sql).await?)
}

impl Locked {
    /// Takes the locks of `statement` ([`lock_statement`]) for `groups` and
    /// the stored rows `params` select. The request is sent when the future
    /// is first polled, so the writes pipelined after it run with the locks
    /// held.
    ///
    /// # Errors
    /// [`crate::PostgresError`] from the server.
    pub(crate) async fn take(
        &mut self,
        tx: &Transaction<'_>,
        statement: &Statement,
        groups: &[&str],
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<()> {
        let mut all: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(params.len() + 1);
        all.extend_from_slice(params);
        all.push(&groups);
        for row in tx.query(statement, &all).await? {
            self.0.insert(row.try_get(0)?);
        }
        Ok(())
    }

    /// Locks the sequences among `groups` not locked yet.
    ///
    /// # Errors
    /// [`crate::PostgresError`] from the server.
    pub(crate) async fn ensure(&mut self, tx: &Transaction<'_>, groups: &[&str]) -> Result<()> {
        let missing: Vec<&str> = groups
            .iter()
            .copied()
            .filter(|g| !self.0.contains(*g))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let statement = lock_statement(tx, None, 0).await?;
        self.take(tx, &statement, &missing, &[]).await
    }
}
