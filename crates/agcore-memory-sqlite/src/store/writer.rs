//! Store writes on the writer thread: group commit and eviction.
//!
//! The writer thread ([`crate::connection`]) takes every store write already
//! queued (up to [`MAX_GROUP`]) and hands them to [`StoreWriter::commit_group`],
//! which applies them in one transaction, commits, and only then answers the
//! callers — so a write reported done is committed (group commit: many
//! concurrent single saves share one commit). If the group fails, each write
//! is retried alone so only the bad one fails.

use crate::error::Result;
use rusqlite::{Connection, ToSql, TransactionBehavior};
use tokio::sync::oneshot;

use super::context;
use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::group_commit::{self, copy_error};
use agcore_memory::{EvictionConfig, MemoryError, MemoryItem};

mod delete;
mod encode;
mod upsert;

pub(crate) use delete::evict;
use delete::{DELETED, delete_indexed};
use upsert::upsert;

/// Most queued writes committed together.
pub(crate) const MAX_GROUP: usize = 256;

/// A write, validated and ready to apply.
pub(crate) enum WriteOp {
    /// Upsert these items, in order.
    Upsert(Vec<MemoryItem>),
    /// Delete the item with this id.
    Delete(String),
}

/// Where a store write's outcome goes.
pub(crate) type StoreReply = oneshot::Sender<std::result::Result<(), MemoryError>>;

/// The writer thread's state for store writes: eviction and its schedule,
/// the context field.
pub(crate) struct StoreWriter {
    eviction: EvictionConfig,
    context: Option<ContextField>,
    writes_since_check: usize,
    /// Threads a large batch may use to compute index terms.
    threads: usize,
}

impl StoreWriter {
    pub(crate) fn new(eviction: EvictionConfig, context: Option<ContextField>) -> Self {
        Self {
            eviction,
            context,
            writes_since_check: 0,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
        }
    }

    /// Applies `group` in one transaction and answers every caller.
    pub(crate) fn commit_group(
        &mut self,
        conn: &mut Connection,
        group: Vec<(WriteOp, StoreReply)>,
    ) {
        let started = std::time::Instant::now();
        let (ops, replies): (Vec<WriteOp>, Vec<StoreReply>) = group.into_iter().unzip();
        match self.apply_group(conn, &ops) {
            Ok((results, rows)) => {
                tracing::debug!(
                    rows,
                    latency_ms = started.elapsed().as_secs_f64() * 1e3,
                    "sqlite memory store: write group committed"
                );
                for (result, reply) in results.into_iter().zip(replies) {
                    let _ = reply.send(result.map_err(MemoryError::from));
                }
            }
            Err(err) => {
                // Nothing of the group was committed (the transaction rolled back on drop).
                let err = MemoryError::from(err);
                tracing::warn!(error = %err, "sqlite memory store: write group failed");
                for reply in replies {
                    let _ = reply.send(Err(copy_error(&err)));
                }
            }
        }
    }

    /// Applies `ops` in one transaction, each op alone if that fails
    /// ([`group_commit::apply_group`]). Returns each op's result and the
    /// number of rows written.
    #[allow(clippy::type_complexity)]
    fn apply_group(
        &mut self,
        conn: &mut Connection,
        ops: &[WriteOp],
    ) -> Result<(Vec<Result<()>>, usize)> {
        group_commit::apply_group(ops, |ops| self.transact(conn, ops))
    }

    /// One transaction: the ops in order (consecutive upserts coalesced into
    /// multi-row statements), eviction when due, commit. Returns the rows written.
    fn transact(&mut self, conn: &mut Connection, ops: &[WriteOp]) -> Result<usize> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut rows = 0usize;
        let mut pending: Vec<&MemoryItem> = Vec::new();
        let context = self.context.as_ref();
        for op in ops {
            match op {
                WriteOp::Upsert(items) => pending.extend(items),
                WriteOp::Delete(id) => {
                    rows += upsert(&tx, &pending, context, self.threads)?;
                    pending.clear();
                    delete_indexed(
                        &tx,
                        &format!("DELETE FROM memory_items WHERE id = ?1 RETURNING {DELETED}"),
                        &[id as &dyn ToSql],
                        context::window(context),
                    )?;
                }
            }
        }
        rows += upsert(&tx, &pending, context, self.threads)?;
        let due =
            self.writes_since_check.saturating_add(rows) >= self.eviction.check_interval.max(1);
        if due {
            evict(&tx, &self.eviction.policy, context::window(context))?;
        }
        tx.commit()?;
        self.writes_since_check = if due {
            0
        } else {
            self.writes_since_check + rows
        };
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer() -> (Connection, StoreWriter) {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        // Makes the upsert of id `bad` fail inside SQLite.
        conn.execute_batch(
            "CREATE TRIGGER boom BEFORE INSERT ON memory_items WHEN new.id = 'bad' \
             BEGIN SELECT RAISE(ABORT, 'boom'); END;",
        )
        .unwrap();
        (conn, StoreWriter::new(EvictionConfig::none(), None))
    }

    fn ids(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT id FROM memory_items ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    #[test]
    fn a_failing_write_fails_alone_in_its_group() {
        let (mut conn, mut w) = writer();
        let ops = vec![
            WriteOp::Upsert(vec![MemoryItem::new("a", "one")]),
            WriteOp::Upsert(vec![MemoryItem::new("bad", "two")]),
            WriteOp::Delete("a".into()),
            WriteOp::Upsert(vec![
                MemoryItem::new("c", "three"),
                MemoryItem::new("c", "four"),
            ]),
        ];
        let (results, rows) = w.apply_group(&mut conn, &ops).unwrap();
        assert!(results[0].is_ok() && results[2].is_ok() && results[3].is_ok());
        assert!(matches!(&results[1], Err(e) if e.to_string().contains("boom")));
        assert_eq!(rows, 3);
        assert_eq!(ids(&conn), ["c"]);
        let content: String = conn
            .query_row("SELECT content FROM memory_items WHERE id = 'c'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(content, "four", "a later duplicate in one batch wins");
    }

    #[test]
    fn a_lone_failing_write_reports_its_error() {
        let (mut conn, mut w) = writer();
        let ops = vec![WriteOp::Upsert(vec![MemoryItem::new("bad", "x")])];
        assert!(w.apply_group(&mut conn, &ops).is_err());
        assert!(ids(&conn).is_empty());
    }

    #[test]
    fn capacity_eviction_keeps_the_newest() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        let mut w = StoreWriter::new(EvictionConfig::capacity(2, 1), None);
        let t = |s| chrono::DateTime::from_timestamp(s, 0).unwrap();
        let items = (0..5)
            .map(|n| MemoryItem::new(format!("k{n}"), "x").with_created_at(t(100 - n)))
            .collect();
        w.apply_group(&mut conn, &[WriteOp::Upsert(items)]).unwrap();
        assert_eq!(ids(&conn), ["k0", "k1"]);
    }
}
