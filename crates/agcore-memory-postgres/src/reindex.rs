//! Re-indexing with the store analyzer: each component records the
//! analyzer that built its postings (`agcore_store_meta` and
//! `agcore_lt_meta`, key `analyzer`); the shared loop
//! ([`agcore_memory::reindex::run`]) re-tokenises every row when it is not
//! this library's, and this module gives it the SQL: batches of [`BATCH`]
//! rows whose postings, document lengths and total lengths are rewritten.
//! It runs inside the migration's transaction under its advisory lock, so
//! concurrent openers re-index once and a failure leaves the old index
//! whole; the component's tables are locked against writers (`EXCLUSIVE`:
//! readers go on) while it runs. The store's postings are rebuilt with the
//! own field only, and its context fields marked for derivation
//! ([`crate::store::context::stale::mark_stale`]), which follows in the
//! same transaction.

use std::collections::BTreeMap;

use agcore_memory::long_term::MemoryEntry;
use agcore_memory::reindex::{self, Reindex, ReindexRow, Reindexed};
use agcore_search::collection::term_counts;
use agcore_search::index_terms;
use deadpool_postgres::Transaction;

use crate::error::{PostgresError, Result, storage};

/// Rows re-tokenised per round trip.
pub(crate) const BATCH: i64 = 2_000;

/// Re-indexes every component whose recorded analyzer is not this
/// library's; runs in the migration transaction.
///
/// # Errors
/// [`crate::PostgresError`] from the server; a storage error for stored
/// content that is not UTF-8.
pub(crate) async fn sync(tx: &Transaction<'_>) -> Result<()> {
    reindex::run(&mut Component { tx, sql: &STORE }).await?;
    reindex::run(&mut Component {
        tx,
        sql: &LONG_TERM,
    })
    .await?;
    Ok(())
}

/// The distinct index terms of `text` with their frequencies
/// ([`term_counts`]), and its length (terms with repeats); the postings of
/// the store and of long-term memory are written from it.
pub(crate) fn analyze(text: &str) -> (BTreeMap<String, i32>, i32) {
    let tokens = index_terms(text);
    let len = i32::try_from(tokens.len()).unwrap_or(i32::MAX);
    (term_counts(tokens), len)
}

/// A component's statements.
struct Sql {
    name: &'static str,
    meta: &'static str,
    /// Locks the tables against writers and empties the postings.
    begin: &'static str,
    /// `(key, group, text columns…, len)` after `$1`, at most `$2`.
    read: &'static str,
    /// Sets each row's length: `$1` keys, `$2` lengths.
    lens: &'static str,
    /// Inserts postings as columns (see [`write`](Reindex::write)).
    postings: &'static str,
    /// Adds `$2` deltas to the total lengths of `$1` groups.
    totals: &'static str,
}

const STORE: Sql = Sql {
    name: "store",
    meta: "agcore_store_meta",
    begin: "LOCK TABLE agcore_items, agcore_postings, agcore_item_stats IN EXCLUSIVE MODE;
            DELETE FROM agcore_postings;",
    read: "SELECT doc, 0::int8, content, len FROM agcore_items WHERE doc > $1 ORDER BY doc LIMIT $2",
    lens: "UPDATE agcore_items AS i SET len = u.len
           FROM unnest($1::int8[], $2::int4[]) AS u(doc, len) WHERE i.doc = u.doc",
    postings: "INSERT INTO agcore_postings (term, doc, tf, len)
               SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int4[])",
    totals: "UPDATE agcore_item_stats AS s SET total_len = s.total_len + u.delta
             FROM unnest($1::int8[], $2::int8[]) AS u(shard, delta) WHERE s.shard = u.shard",
};

const LONG_TERM: Sql = Sql {
    name: "long_term",
    meta: "agcore_lt_meta",
    begin: "LOCK TABLE agcore_lt_scopes, agcore_lt_entries, agcore_lt_postings IN EXCLUSIVE MODE;
            DELETE FROM agcore_lt_postings;",
    read: "SELECT id, scope_id, name, content, description, len FROM agcore_lt_entries
           WHERE id > $1 ORDER BY id LIMIT $2",
    lens: "UPDATE agcore_lt_entries AS e SET len = u.len
           FROM unnest($1::int8[], $2::int4[]) AS u(id, len) WHERE e.id = u.id",
    postings: "INSERT INTO agcore_lt_postings (scope_id, term, entry_id, tf, len, archived, memory_type)
               SELECT u.*, m.len, m.archived, m.memory_type
               FROM unnest($1::int8[], $2::text[], $3::int8[], $4::int4[]) AS u(scope_id, term, entry_id, tf)
               JOIN agcore_lt_entries m ON m.id = u.entry_id",
    totals: "UPDATE agcore_lt_scopes AS s SET total_len = s.total_len + u.delta
             FROM unnest($1::int8[], $2::int8[]) AS u(id, delta) WHERE s.id = u.id",
};

/// One component's index in the migration transaction.
struct Component<'a, 'b> {
    tx: &'a Transaction<'b>,
    sql: &'static Sql,
}

/// A row read by [`Sql::read`]: the store's content is bytes, checked to be
/// UTF-8; an entry's search text is built from its three text columns.
fn row(row: &tokio_postgres::Row) -> Result<ReindexRow> {
    let key: i64 = row.try_get(0)?;
    let text = if row.len() == 4 {
        String::from_utf8(row.try_get::<_, Vec<u8>>(2)?)
            .map_err(|_| storage(format!("postgres: item {key} is not UTF-8")))?
    } else {
        let (name, content, description): (String, String, String) =
            (row.try_get(2)?, row.try_get(3)?, row.try_get(4)?);
        MemoryEntry::search_text_of(&name, &content, &description)
    };
    let len: i32 = row.try_get(row.len() - 1)?;
    Ok(ReindexRow {
        key,
        group: row.try_get(1)?,
        text,
        len: i64::from(len),
    })
}

impl Reindex for Component<'_, '_> {
    type Error = PostgresError;

    fn names(&self) -> (&'static str, &'static str) {
        ("postgres", self.sql.name)
    }

    fn batch(&self) -> i64 {
        BATCH
    }

    async fn recorded(&mut self) -> Result<Option<String>> {
        let sql = format!("SELECT value FROM {} WHERE key = 'analyzer'", self.sql.meta);
        match self.tx.query_opt(&sql, &[]).await? {
            Some(row) => Ok(Some(row.try_get(0)?)),
            None => Ok(None),
        }
    }

    async fn begin(&mut self) -> Result<()> {
        Ok(self.tx.batch_execute(self.sql.begin).await?)
    }

    async fn read(&mut self, after: i64, limit: i64) -> Result<Vec<ReindexRow>> {
        let rows = self.tx.query(self.sql.read, &[&after, &limit]).await?;
        rows.iter().map(row).collect()
    }

    /// The store's postings are `(term, doc, tf, len)`, long-term memory's
    /// `(scope, term, entry, tf)` (the rest joined from the entry).
    async fn write(&mut self, rows: Vec<Reindexed>, deltas: BTreeMap<i64, i64>) -> Result<()> {
        let (tx, sql) = (self.tx, self.sql);
        let keys: Vec<i64> = rows.iter().map(|r| r.key).collect();
        let lens: Vec<i32> = rows
            .iter()
            .map(|r| i32::try_from(r.len).unwrap_or(i32::MAX))
            .collect();
        tx.execute(sql.lens, &[&keys, &lens]).await?;
        let p = Reindexed::postings(&rows);
        if sql.name == STORE.name {
            tx.execute(sql.postings, &[&p.terms, &p.keys, &p.tfs, &p.lens])
                .await?;
        } else {
            tx.execute(sql.postings, &[&p.groups, &p.terms, &p.keys, &p.tfs])
                .await?;
        }
        let (groups, deltas): (Vec<i64>, Vec<i64>) = deltas.into_iter().unzip();
        tx.execute(sql.totals, &[&groups, &deltas]).await?;
        Ok(())
    }

    async fn finish(&mut self) -> Result<()> {
        if self.sql.name == STORE.name {
            crate::store::context::stale::mark_stale(self.tx).await?;
        }
        Ok(())
    }

    async fn record(&mut self, analyzer: &str) -> Result<()> {
        let sql = format!(
            "INSERT INTO {} (key, value) VALUES ('analyzer', $1)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            self.sql.meta
        );
        self.tx.execute(&sql, &[&analyzer]).await?;
        Ok(())
    }
}
