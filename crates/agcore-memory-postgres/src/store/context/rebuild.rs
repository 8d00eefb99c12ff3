//! Deriving every field again (on open with other settings, after an
//! upgrade or a re-index): each row's sequence from its metadata, then every
//! field from the neighbours in set-based statements, with the store's
//! tables locked against writers (`EXCLUSIVE`: readers go on).

use agcore_memory::retriever::{ContextField, MAX_STORED_WINDOW};
use agcore_memory::sql_store::stored_group;
use deadpool_postgres::Transaction;

use crate::error::Result;
use crate::reindex::BATCH;

/// Every row's sequence from its metadata and field from its neighbours
/// under `context` (none without it); the summed statistics recounted.
/// Runs in the caller's transaction.
///
/// # Errors
/// [`crate::PostgresError`] from the server; a storage error for stored
/// metadata that is not JSON.
pub(super) async fn rebuild(tx: &Transaction<'_>, context: Option<&ContextField>) -> Result<()> {
    tx.batch_execute(
        "LOCK TABLE agcore_items, agcore_postings, agcore_item_stats IN EXCLUSIVE MODE",
    )
    .await?;
    assign_groups(tx, context).await?;
    // Back to the own field alone.
    tx.batch_execute(
        "DELETE FROM agcore_postings WHERE tf = 0;
         UPDATE agcore_postings SET ctf = 0, clen = 0 WHERE ctf <> 0 OR clen <> 0;
         UPDATE agcore_items SET context_len = 0 WHERE context_len <> 0;",
    )
    .await?;
    let w = ContextField::stored_window(context, MAX_STORED_WINDOW);
    if w > 0 {
        // Each member's neighbours by rank in its sequence (list order);
        // fields are their own postings summed.
        tx.batch_execute(&format!(
            "DROP TABLE IF EXISTS pg_temp.agcore_context_pairs;
             CREATE TEMP TABLE agcore_context_pairs ON COMMIT DROP AS
             WITH ranked AS (
                 SELECT doc, grp, len,
                        row_number() OVER (PARTITION BY grp ORDER BY created_s, created_ns, id) AS r
                 FROM agcore_items WHERE grp IS NOT NULL
             )
             SELECT a.doc AS target, b.doc AS neighbour, b.len
             FROM ranked a JOIN ranked b ON b.grp = a.grp
                 AND b.r BETWEEN a.r - {w} AND a.r + {w} AND b.r <> a.r;
             UPDATE agcore_items AS i SET context_len = c.len
             FROM (SELECT target, sum(len)::int4 AS len FROM agcore_context_pairs GROUP BY target) c
             WHERE i.doc = c.target AND c.len <> 0;
             INSERT INTO agcore_postings AS p (term, doc, tf, len, ctf, clen)
                 SELECT o.term, x.target, 0, i.len, sum(o.tf)::int4, i.context_len
                 FROM agcore_context_pairs x
                 JOIN agcore_postings o ON o.doc = x.neighbour AND o.tf > 0
                 JOIN agcore_items i ON i.doc = x.target
                 GROUP BY o.term, x.target, i.len, i.context_len
             ON CONFLICT (term, doc) DO UPDATE SET ctf = EXCLUDED.ctf;
             UPDATE agcore_postings AS p SET clen = i.context_len FROM agcore_items i
             WHERE p.doc = i.doc AND i.context_len <> 0 AND p.clen <> i.context_len;
             DROP TABLE agcore_context_pairs;"
        ))
        .await?;
    }
    tx.batch_execute(
        "UPDATE agcore_item_stats AS s
         SET grouped = CASE WHEN s.shard = 0 THEN t.g ELSE 0 END,
             context_len = CASE WHEN s.shard = 0 THEN t.c ELSE 0 END
         FROM (SELECT count(*) AS g, COALESCE(sum(context_len), 0)::int8 AS c
               FROM agcore_items WHERE grp IS NOT NULL) t",
    )
    .await?;
    Ok(())
}

/// Sets every row's `grp` from its metadata (`NULL` everywhere without a field).
async fn assign_groups(tx: &Transaction<'_>, context: Option<&ContextField>) -> Result<()> {
    let Some(context) = context else {
        tx.batch_execute("UPDATE agcore_items SET grp = NULL WHERE grp IS NOT NULL")
            .await?;
        return Ok(());
    };
    let mut after = i64::MIN;
    loop {
        let rows = tx
            .query(
                "SELECT doc, metadata, grp FROM agcore_items WHERE doc > $1 ORDER BY doc LIMIT $2",
                &[&after, &BATCH],
            )
            .await?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = last.try_get(0)?;
        let (mut docs, mut groups) = (Vec::new(), Vec::new());
        for row in &rows {
            let new = stored_group(context, row.try_get(1)?)?;
            let old: Option<String> = row.try_get(2)?;
            if new != old {
                docs.push(row.try_get::<_, i64>(0)?);
                groups.push(new);
            }
        }
        if !docs.is_empty() {
            tx.execute(
                "UPDATE agcore_items AS i SET grp = u.grp
                 FROM unnest($1::int8[], $2::text[]) AS u(doc, grp) WHERE i.doc = u.doc",
                &[&docs, &groups],
            )
            .await?;
        }
    }
}
