//! Re-indexing with the store analyzer: each component records the
//! analyzer that built its `terms` columns (`agcore_store_meta` and
//! `agcore_lt_meta`, `analyzer`); the shared loop
//! ([`agcore_memory::reindex::run`]) re-tokenises every row when it is not
//! this library's, and this module gives it the SQL: batches of [`BATCH`]
//! rows, one transaction each (the rows' `terms` and `len` and the BM25
//! total lengths change together; the `FULLTEXT` index follows by itself).
//! It runs under the migration's named lock, so concurrent openers
//! re-index once. The store's context fields hold the old words: they are
//! marked for derivation.

use std::collections::BTreeMap;

use agcore_memory::long_term::MemoryEntry;
use agcore_memory::reindex::{self, Reindex, ReindexRow, Reindexed};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row, TxOpts};

use crate::error::{MysqlError, Result, storage};
use crate::row::take;
use crate::terms;

/// Rows re-tokenised per transaction.
pub(crate) const BATCH: i64 = 1_000;

/// Re-indexes every component whose recorded analyzer is not this
/// library's; runs under the migration lock, after the schema steps.
///
/// # Errors
/// [`crate::MysqlError`] from the server; a storage error for stored text
/// that is not UTF-8.
pub(crate) async fn sync(conn: &mut Conn) -> Result<()> {
    reindex::run(&mut Component { conn, sql: &STORE }).await?;
    reindex::run(&mut Component {
        conn,
        sql: &LONG_TERM,
    })
    .await?;
    Ok(())
}

/// A component's statements.
struct Sql {
    name: &'static str,
    meta: &'static str,
    /// `(key, group, text columns…, len)` after `?`, at most `?`.
    read: &'static str,
    /// Sets a row's `terms` and `len`.
    rows: &'static str,
    /// Adds a delta to a group's total length.
    totals: &'static str,
}

const STORE: Sql = Sql {
    name: "store",
    meta: "agcore_store_meta",
    read: "SELECT doc, 0, content, len FROM agcore_items WHERE doc > ? ORDER BY doc LIMIT ?",
    rows: "UPDATE agcore_items SET terms = ?, len = ? WHERE doc = ?",
    totals: "UPDATE agcore_item_stats SET total_len = total_len + ? WHERE shard = ?",
};

const LONG_TERM: Sql = Sql {
    name: "long_term",
    meta: "agcore_lt_meta",
    read: "SELECT id, scope_id, name, content, description, len FROM agcore_lt_entries
           WHERE id > ? ORDER BY id LIMIT ?",
    rows: "UPDATE agcore_lt_entries SET terms = ?, len = ? WHERE id = ?",
    totals: "UPDATE agcore_lt_scopes SET total_len = total_len + ? WHERE id = ?",
};

/// One component's index on one connection.
struct Component<'a> {
    conn: &'a mut Conn,
    sql: &'static Sql,
}

/// A row read by [`Sql::read`]: the store's content, or an entry's search
/// text built from its three text columns (each checked to be UTF-8).
fn row(mut row: Row) -> Result<ReindexRow> {
    let (key, group): (i64, i64) = (take(&mut row, 0)?, take(&mut row, 1)?);
    let (what, n) = if row.len() == 4 {
        ("item", 1)
    } else {
        ("entry", 3)
    };
    let text = |row: &mut Row, i| {
        String::from_utf8(take::<Vec<u8>>(row, i)?)
            .map_err(|_| storage(format!("mysql: {what} {key} is not UTF-8")))
    };
    let texts = (2..2 + n)
        .map(|i| text(&mut row, i))
        .collect::<Result<Vec<_>>>()?;
    let text = match texts.as_slice() {
        [name, content, description] => MemoryEntry::search_text_of(name, content, description),
        _ => texts.concat(),
    };
    Ok(ReindexRow {
        key,
        group,
        text,
        len: take(&mut row, 2 + n)?,
    })
}

impl Reindex for Component<'_> {
    type Error = MysqlError;

    fn names(&self) -> (&'static str, &'static str) {
        ("mysql", self.sql.name)
    }

    fn batch(&self) -> i64 {
        BATCH
    }

    async fn recorded(&mut self) -> Result<Option<String>> {
        let sql = format!(
            "SELECT value FROM {} WHERE name = 'analyzer'",
            self.sql.meta
        );
        Ok(self.conn.query_first(sql).await?)
    }

    async fn read(&mut self, after: i64, limit: i64) -> Result<Vec<ReindexRow>> {
        let rows: Vec<Row> = self.conn.exec(self.sql.read, (after, limit)).await?;
        rows.into_iter().map(row).collect()
    }

    /// One transaction per batch: an entry's words carry its scope's prefix.
    async fn write(&mut self, rows: Vec<Reindexed>, deltas: BTreeMap<i64, i64>) -> Result<()> {
        let store = self.sql.name == STORE.name;
        let updates = rows.into_iter().map(|row| {
            let prefix = if store {
                String::new()
            } else {
                format!("s{}", row.group)
            };
            (terms::column(&prefix, &row.tokens), row.len, row.key)
        });
        let mut tx = self.conn.start_transaction(TxOpts::default()).await?;
        tx.exec_batch(self.sql.rows, updates).await?;
        let totals = deltas.into_iter().map(|(group, delta)| (delta, group));
        tx.exec_batch(self.sql.totals, totals).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn finish(&mut self) -> Result<()> {
        if self.sql.name == STORE.name {
            crate::store::mark_stale(self.conn).await?;
        }
        Ok(())
    }

    async fn record(&mut self, analyzer: &str) -> Result<()> {
        let sql = format!(
            "INSERT INTO {} (name, value) VALUES ('analyzer', ?)
             ON DUPLICATE KEY UPDATE value = VALUES(value)",
            self.sql.meta
        );
        self.conn.exec_drop(sql, (analyzer,)).await?;
        Ok(())
    }
}
