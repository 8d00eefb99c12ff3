//! Re-indexing with the store analyzer: each component records the
//! analyzer that built its postings (`agcore_store_meta` and
//! `agcore_lt_meta`, key `analyzer`); when it is not this library's
//! [`ANALYZER_ID`], [`sync`] re-tokenises every row in batches of [`BATCH`]
//! with [`index_terms`], rewrites the postings, document lengths and total
//! lengths, and records the new analyzer. It runs inside the migration's
//! transaction under its advisory lock, so concurrent openers re-index once
//! and a failure leaves the old index whole; the component's tables are
//! locked against writers (`EXCLUSIVE`: readers go on) while it runs. The
//! store's postings are rebuilt with the own field only, and its context
//! fields marked for derivation ([`crate::store::context::stale::mark_stale`]),
//! which follows in the same transaction.

use std::collections::BTreeMap;

use agcore_memory::long_term::MemoryEntry;
use agcore_search::collection::term_counts;
use agcore_search::{ANALYZER_ID, index_terms};
use deadpool_postgres::Transaction;

use crate::error::{Result, storage};

/// Rows re-tokenised per round trip.
pub(crate) const BATCH: i64 = 2_000;

/// Re-indexes every component whose recorded analyzer is not
/// [`ANALYZER_ID`]; runs in the migration transaction.
///
/// # Errors
/// [`crate::PostgresError`] from the server; a storage error for stored
/// content that is not UTF-8.
pub(crate) async fn sync(tx: &Transaction<'_>) -> Result<()> {
    // Each indexed component and its meta table.
    for (component, meta) in [
        ("store", "agcore_store_meta"),
        ("long_term", "agcore_lt_meta"),
    ] {
        let sql = format!("SELECT value FROM {meta} WHERE key = 'analyzer'");
        let found: Option<String> = match tx.query_opt(&sql, &[]).await? {
            Some(row) => Some(row.try_get(0)?),
            None => None,
        };
        if found.as_deref() == Some(ANALYZER_ID) {
            continue;
        }
        match component {
            "store" => reindex_store(tx).await?,
            _ => reindex_long_term(tx).await?,
        }
        tx.execute(
            &format!(
                "INSERT INTO {meta} (key, value) VALUES ('analyzer', $1)
                 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
            ),
            &[&ANALYZER_ID],
        )
        .await?;
        tracing::info!(component, from = ?found, to = ANALYZER_ID, "postgres: re-indexed");
    }
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

async fn reindex_store(tx: &Transaction<'_>) -> Result<()> {
    tx.batch_execute(
        "LOCK TABLE agcore_items, agcore_postings, agcore_item_stats IN EXCLUSIVE MODE;
         DELETE FROM agcore_postings;",
    )
    .await?;
    let mut after = i64::MIN;
    let mut len_delta: i64 = 0;
    loop {
        let rows = tx
            .query(
                "SELECT doc, content, len FROM agcore_items WHERE doc > $1 ORDER BY doc LIMIT $2",
                &[&after, &BATCH],
            )
            .await?;
        let Some(last) = rows.last() else { break };
        after = last.try_get(0)?;
        let (mut docs, mut lens) = (
            Vec::with_capacity(rows.len()),
            Vec::with_capacity(rows.len()),
        );
        let (mut p_terms, mut p_docs, mut p_tfs, mut p_lens) = (vec![], vec![], vec![], vec![]);
        for row in &rows {
            let doc: i64 = row.try_get(0)?;
            let content = String::from_utf8(row.try_get::<_, Vec<u8>>(1)?)
                .map_err(|_| storage(format!("postgres: item {doc} is not UTF-8")))?;
            let old: i32 = row.try_get(2)?;
            let (tfs, len) = analyze(&content);
            len_delta += i64::from(len) - i64::from(old);
            docs.push(doc);
            lens.push(len);
            for (term, tf) in tfs {
                p_terms.push(term);
                p_docs.push(doc);
                p_tfs.push(tf);
                p_lens.push(len);
            }
        }
        tx.execute(
            "UPDATE agcore_items AS i SET len = u.len
             FROM unnest($1::int8[], $2::int4[]) AS u(doc, len) WHERE i.doc = u.doc",
            &[&docs, &lens],
        )
        .await?;
        tx.execute(
            "INSERT INTO agcore_postings (term, doc, tf, len)
             SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int4[])",
            &[&p_terms, &p_docs, &p_tfs, &p_lens],
        )
        .await?;
    }
    tx.execute(
        "UPDATE agcore_item_stats SET total_len = total_len + $1 WHERE shard = 0",
        &[&len_delta],
    )
    .await?;
    crate::store::context::stale::mark_stale(tx).await
}

async fn reindex_long_term(tx: &Transaction<'_>) -> Result<()> {
    tx.batch_execute(
        "LOCK TABLE agcore_lt_scopes, agcore_lt_entries, agcore_lt_postings IN EXCLUSIVE MODE;
         DELETE FROM agcore_lt_postings;",
    )
    .await?;
    let mut after = i64::MIN;
    let mut len_delta: BTreeMap<i64, i64> = BTreeMap::new();
    loop {
        let rows = tx
            .query(
                "SELECT id, scope_id, name, content, description, len FROM agcore_lt_entries
                 WHERE id > $1 ORDER BY id LIMIT $2",
                &[&after, &BATCH],
            )
            .await?;
        let Some(last) = rows.last() else { break };
        after = last.try_get(0)?;
        let (mut ids, mut lens) = (
            Vec::with_capacity(rows.len()),
            Vec::with_capacity(rows.len()),
        );
        let (mut p_scopes, mut p_terms, mut p_ids, mut p_tfs) = (vec![], vec![], vec![], vec![]);
        for row in &rows {
            let id: i64 = row.try_get(0)?;
            let scope: i64 = row.try_get(1)?;
            let (name, content, description): (String, String, String) =
                (row.try_get(2)?, row.try_get(3)?, row.try_get(4)?);
            let old: i32 = row.try_get(5)?;
            let (tfs, len) = analyze(&MemoryEntry::search_text_of(&name, &content, &description));
            *len_delta.entry(scope).or_insert(0) += i64::from(len) - i64::from(old);
            ids.push(id);
            lens.push(len);
            for (term, tf) in tfs {
                p_scopes.push(scope);
                p_terms.push(term);
                p_ids.push(id);
                p_tfs.push(tf);
            }
        }
        tx.execute(
            "UPDATE agcore_lt_entries AS e SET len = u.len
             FROM unnest($1::int8[], $2::int4[]) AS u(id, len) WHERE e.id = u.id",
            &[&ids, &lens],
        )
        .await?;
        tx.execute(
            "INSERT INTO agcore_lt_postings (scope_id, term, entry_id, tf, len, archived, memory_type)
             SELECT u.*, m.len, m.archived, m.memory_type
             FROM unnest($1::int8[], $2::text[], $3::int8[], $4::int4[]) AS u(scope_id, term, entry_id, tf)
             JOIN agcore_lt_entries m ON m.id = u.entry_id",
            &[&p_scopes, &p_terms, &p_ids, &p_tfs],
        )
        .await?;
    }
    let (scopes, deltas): (Vec<i64>, Vec<i64>) = len_delta.into_iter().unzip();
    tx.execute(
        "UPDATE agcore_lt_scopes AS s SET total_len = s.total_len + u.delta
         FROM unnest($1::int8[], $2::int8[]) AS u(id, delta) WHERE s.id = u.id",
        &[&scopes, &deltas],
    )
    .await?;
    Ok(())
}
