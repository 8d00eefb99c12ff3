//! Re-indexing with the store analyzer: each component records the
//! analyzer that built its `terms` columns (`agcore_store_meta` and
//! `agcore_lt_meta`, `analyzer`); when it is not this library's
//! [`ANALYZER_ID`], [`sync`] re-tokenises every row with [`index_terms`] in
//! batches of [`BATCH`], one transaction each (the row's `terms` and `len`
//! and the BM25 total length change together; the `FULLTEXT` index follows
//! by itself), then records the new analyzer. It runs under the migration's
//! named lock, so concurrent openers re-index once; a run cut short leaves
//! the old record, and the next open re-tokenises every row again (each
//! batch recomputes from the row's text and current length: idempotent).

use agcore_memory::long_term::MemoryEntry;
use agcore_search::{ANALYZER_ID, index_terms};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, TxOpts};

use crate::error::{Result, storage};
use crate::terms;

/// Rows re-tokenised per transaction.
pub(crate) const BATCH: i64 = 1_000;

/// Re-indexes every component whose recorded analyzer is not
/// [`ANALYZER_ID`]; runs under the migration lock, after the schema steps.
///
/// # Errors
/// [`crate::MysqlError`] from the server; a storage error for stored text
/// that is not UTF-8.
pub(crate) async fn sync(conn: &mut Conn) -> Result<()> {
    for (component, meta) in [
        ("store", "agcore_store_meta"),
        ("long_term", "agcore_lt_meta"),
    ] {
        let found: Option<String> = conn
            .query_first(format!("SELECT value FROM {meta} WHERE name = 'analyzer'"))
            .await?;
        if found.as_deref() == Some(ANALYZER_ID) {
            continue;
        }
        if component == "store" {
            reindex_store(conn).await?;
            // The context fields hold the old words: derive them again.
            crate::store::mark_stale(conn).await?;
        } else {
            reindex_long_term(conn).await?;
        }
        conn.exec_drop(
            format!(
                "INSERT INTO {meta} (name, value) VALUES ('analyzer', ?)
                 ON DUPLICATE KEY UPDATE value = VALUES(value)"
            ),
            (ANALYZER_ID,),
        )
        .await?;
        tracing::info!(component, from = ?found, to = ANALYZER_ID, "mysql: re-indexed");
    }
    Ok(())
}

fn text(bytes: Vec<u8>, what: &str, id: i64) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| storage(format!("mysql: {what} {id} is not UTF-8")))
}

async fn reindex_store(conn: &mut Conn) -> Result<()> {
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, Vec<u8>, i64)> = conn
            .exec(
                "SELECT doc, content, len FROM agcore_items WHERE doc > ? ORDER BY doc LIMIT ?",
                (after, BATCH),
            )
            .await?;
        let Some(last) = rows.last().map(|r| r.0) else {
            return Ok(());
        };
        let mut updates = Vec::with_capacity(rows.len());
        let mut delta = 0_i64;
        for (doc, content, old) in rows {
            let tokens = index_terms(&text(content, "item", doc)?);
            let len = i64::try_from(tokens.len()).unwrap_or(i64::MAX);
            delta += len - old;
            updates.push((terms::column("", &tokens), len, doc));
        }
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        tx.exec_batch(
            "UPDATE agcore_items SET terms = ?, len = ? WHERE doc = ?",
            updates,
        )
        .await?;
        tx.exec_drop(
            "UPDATE agcore_item_stats SET total_len = total_len + ? WHERE shard = 0",
            (delta,),
        )
        .await?;
        tx.commit().await?;
        after = last;
    }
}

/// A long-term row as read for re-indexing.
type EntryRow = (i64, i64, Vec<u8>, Vec<u8>, Vec<u8>, i64);

async fn reindex_long_term(conn: &mut Conn) -> Result<()> {
    let mut after = i64::MIN;
    loop {
        let rows: Vec<EntryRow> = conn
            .exec(
                "SELECT id, scope_id, name, content, description, len FROM agcore_lt_entries
                 WHERE id > ? ORDER BY id LIMIT ?",
                (after, BATCH),
            )
            .await?;
        let Some(last) = rows.last().map(|r| r.0) else {
            return Ok(());
        };
        let mut updates = Vec::with_capacity(rows.len());
        let mut deltas: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
        for (id, scope, name, content, description, old) in rows {
            let search_text = MemoryEntry::search_text_of(
                &text(name, "entry", id)?,
                &text(content, "entry", id)?,
                &text(description, "entry", id)?,
            );
            let tokens = index_terms(&search_text);
            let len = i64::try_from(tokens.len()).unwrap_or(i64::MAX);
            *deltas.entry(scope).or_insert(0) += len - old;
            updates.push((terms::column(&format!("s{scope}"), &tokens), len, id));
        }
        let mut tx = conn.start_transaction(TxOpts::default()).await?;
        tx.exec_batch(
            "UPDATE agcore_lt_entries SET terms = ?, len = ? WHERE id = ?",
            updates,
        )
        .await?;
        tx.exec_batch(
            "UPDATE agcore_lt_scopes SET total_len = total_len + ? WHERE id = ?",
            deltas.into_iter().map(|(scope, delta)| (delta, scope)),
        )
        .await?;
        tx.commit().await?;
        after = last;
    }
}
