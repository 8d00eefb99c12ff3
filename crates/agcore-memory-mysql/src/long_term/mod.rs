//! [`MysqlLongTerm`]: long-term memory (per agent and user: four memory
//! types, weights, usage log, archive, dialogue buffer, history) in MySQL /
//! MariaDB tables; the field rules are the shared ones of
//! [`agcore_memory::long_term::apply`] and the flows those of
//! [`agcore_memory::long_term::sql`], so every backend behaves alike. This
//! module holds the connections and transactions ([`MysqlLongTermDriver`]),
//! the row operations' SQL (`tx`, `rows`, `scopes`), the
//! document frequencies (`df`) and the search.

mod df;
mod rows;
pub(crate) mod schema;
mod scopes;
mod search;
mod seen;
mod tx;

pub(crate) use df::sync as sync_df;

use std::sync::Arc;

use agcore_memory::MemoryError;
use agcore_memory::long_term::apply::new_entry;
use agcore_memory::long_term::sql::{Access, SqlDriver, SqlLongTerm, Work, WriteIntent};
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use agcore_memory::retry::retry_lock_conflicts;
use async_trait::async_trait;
use mysql_async::{Conn, TxOpts};

use crate::connections::Connections;
use crate::error::{MysqlError, Result, is_retryable_conflict};
use rows::analyze_text;
use seen::Seen;
use tx::MyRows;

/// Names long-term writes in the lock-conflict log.
const WHAT: &str = "mysql long-term memory";

/// Long-term memory on MySQL / MariaDB. Cheap to clone; `Send + Sync`. Get
/// one from [`MysqlDatabase::long_term`](crate::MysqlDatabase::long_term)
/// and wrap it in [`LongTermMemory`](agcore_memory::long_term::LongTermMemory).
///
/// Writes are transactions that lock the rows they change, so agents in
/// several processes can share one database: two saves of the same text in
/// a scope at once make one entry (a unique `(scope, content hash)` index).
/// Search is scoped BM25 over a `FULLTEXT` index: only the scope's entries
/// and statistics are read, and only the query words that can change the
/// top results are matched (document frequencies kept by the writers; see
/// the crate README).
pub type MysqlLongTerm = SqlLongTerm<MysqlLongTermDriver>;

/// The MySQL / MariaDB driver of [`MysqlLongTerm`]: the connections, their
/// transactions and MySQL's SQL for the shared flows ([`SqlDriver`]).
/// Cheap to clone.
#[derive(Clone)]
pub struct MysqlLongTermDriver {
    conns: Connections,
    known: Arc<seen::Seen>,
    /// See [`MysqlDatabaseBuilder::min_pruned_rows`](crate::MysqlDatabaseBuilder::min_pruned_rows).
    min_pruned_rows: u64,
}

impl std::fmt::Debug for MysqlLongTermDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlLongTerm").finish_non_exhaustive()
    }
}

/// Long-term memory on `conns`.
pub(crate) fn long_term(conns: Connections, min_pruned_rows: u64) -> MysqlLongTerm {
    SqlLongTerm::new(MysqlLongTermDriver {
        conns,
        known: Arc::default(),
        min_pruned_rows,
    })
}

impl MysqlLongTermDriver {
    /// Runs `work` on a pooled connection, or in a transaction on one when `tx`.
    async fn once<T>(&self, work: &Work<MysqlError, T>, tx: Option<WriteIntent<'_>>) -> Result<T> {
        let known = &self.known;
        let mut conn = self.conns.get().await?;
        let Some(intent) = tx else {
            return work(&mut MyRows {
                conn: &mut conn,
                known,
            })
            .await;
        };
        prepare(&mut conn, known, intent).await?;
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        let value = work(&mut MyRows {
            conn: &mut tx,
            known,
        })
        .await?;
        tx.commit().await?;
        Ok(value)
    }
}

/// Prepares the write `intent` on `conn` before its transaction begins:
/// the rows of the words it may bring into the scope are created
/// ([`df::create_missing`]), for a save after the scope row (known to `known`
/// from then on, so the transaction need not look it up).
async fn prepare(conn: &mut Conn, known: &Seen, intent: WriteIntent<'_>) -> Result<()> {
    let (scope_id, text) = match intent {
        WriteIntent::Save {
            scope,
            new,
            rules,
            now,
        } => {
            let scope_id = known.scope_id(conn, scope).await?;
            let fresh = new_entry(scope, new.clone(), rules, now);
            (scope_id, fresh.search_text())
        }
        WriteIntent::Update { scope, update } => {
            let text: Vec<&str> = [&update.name, &update.content, &update.description]
                .into_iter()
                .flatten()
                .map(String::as_str)
                .collect();
            if text.is_empty() {
                return Ok(());
            }
            let Some(scope_id) = scopes::existing_scope_id(conn, scope).await? else {
                return Ok(());
            };
            (scope_id, text.join(" "))
        }
        _ => return Ok(()),
    };
    let (words, _) = analyze_text(&text, scope_id);
    df::create_missing(conn, known, &words).await
}

#[async_trait]
impl SqlDriver for MysqlLongTermDriver {
    type Error = MysqlError;

    /// The rows of new words (and for a save the scope row) are made before
    /// the transaction, each committed at once: it then locks no gaps.
    async fn write<T: Send + 'static>(
        &self,
        intent: WriteIntent<'_>,
        work: Work<MysqlError, T>,
    ) -> Result<T, MemoryError> {
        Ok(retry_lock_conflicts(WHAT, is_retryable_conflict, || {
            self.once(&work, Some(intent))
        })
        .await?)
    }

    /// Every call but an insert runs again after a lock conflict.
    async fn run<T: Send + 'static>(
        &self,
        access: Access,
        work: Work<MysqlError, T>,
    ) -> Result<T, MemoryError> {
        if access == Access::Insert {
            return Ok(self.once(&work, None).await?);
        }
        Ok(retry_lock_conflicts(WHAT, is_retryable_conflict, || self.once(&work, None)).await?)
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        Ok(
            retry_lock_conflicts(WHAT, is_retryable_conflict, || async move {
                let request = (request, self.min_pruned_rows);
                search::search(&mut self.conns.get().await?, scope, query, request).await
            })
            .await?,
        )
    }

    async fn close(&self) -> Result<(), MemoryError> {
        self.conns.close();
        Ok(())
    }
}
