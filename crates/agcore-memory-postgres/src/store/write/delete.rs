//! Deletes and eviction: rows removed with their postings, the fields of
//! their neighbours refreshed, the statistics' change returned.

use agcore_memory::EvictionPolicy;
use agcore_memory::sql_store::{split_time, ttl_cutoff};
use chrono::Utc;
use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use crate::error::{Result, storage};
use crate::store::context::{self, Locked, Position};
use crate::store::stats::Delta;

/// Deletes the rows `cond` selects (a condition on `agcore_items i` with
/// `params`), their postings and their share of the statistics (counter row
/// `shard`); with `window` > 0 (a context field) the sequences of the rows
/// are locked first and the fields around their places refreshed. Returns
/// the rows removed.
async fn delete_where(
    tx: &Transaction<'_>,
    (window, shard): (usize, i16),
    cond: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<usize> {
    let mut locked = Locked::default();
    if window > 0 {
        let lock = context::lock_statement(tx, Some(cond), params.len()).await?;
        locked.take(tx, &lock, &[], params).await?;
    }
    let rows = tx
        .query(
            &format!(
                "DELETE FROM agcore_items i WHERE {cond}
                 RETURNING i.len::int8, i.doc, i.grp, i.created_s, i.created_ns, i.id, i.context_len::int8"
            ),
            params,
        )
        .await?;
    let mut delta = Delta::default();
    let mut docs = Vec::with_capacity(rows.len());
    let mut moved = Vec::new();
    for row in &rows {
        delta.docs -= 1;
        delta.len -= row.try_get::<_, i64>(0)?;
        docs.push(row.try_get::<_, i64>(1)?);
        if let Some(grp) = row.try_get::<_, Option<String>>(2)? {
            delta.grouped -= 1;
            moved.push(Position {
                grp,
                secs: row.try_get(3)?,
                nanos: row.try_get(4)?,
                id: row.try_get(5)?,
            });
        }
        delta.context_len -= row.try_get::<_, i64>(6)?;
    }
    if !docs.is_empty() {
        tx.execute("DELETE FROM agcore_postings WHERE doc = ANY($1)", &[&docs])
            .await?;
    }
    if window > 0 && !moved.is_empty() {
        let groups: Vec<&str> = moved.iter().map(|p| p.grp.as_str()).collect();
        locked.ensure(tx, &groups).await?;
    }
    context::settle(tx, window, (moved, Vec::new()), shard, delta).await?;
    Ok(docs.len())
}

/// Deletes one item and its postings, adding the statistics' change to
/// counter row `shard`.
pub(crate) async fn delete(
    tx: &Transaction<'_>,
    id: &str,
    window: usize,
    shard: i16,
) -> Result<()> {
    delete_where(tx, (window, shard), "i.id = $1", &[&id]).await?;
    Ok(())
}

/// Applies the eviction policy in `tx` (statistics in counter row
/// `shard`); returns the items removed.
pub(crate) async fn evict(
    tx: &Transaction<'_>,
    policy: &EvictionPolicy,
    window: usize,
    shard: i16,
) -> Result<usize> {
    let removed = match policy {
        EvictionPolicy::None => 0,
        EvictionPolicy::Ttl { ttl_secs } => {
            let (s, ns) = split_time(ttl_cutoff(*ttl_secs, Utc::now()));
            delete_where(
                tx,
                (window, shard),
                "(i.created_s, i.created_ns) <= ($1, $2)",
                &[&s, &ns],
            )
            .await?
        }
        EvictionPolicy::Capacity { max_items } => {
            let max = i64::try_from(*max_items).unwrap_or(i64::MAX);
            delete_where(
                tx,
                (window, shard),
                "i.id IN (SELECT o.id FROM agcore_items o ORDER BY o.created_s, o.created_ns, o.id
                     LIMIT GREATEST(0, (SELECT count(*) FROM agcore_items) - $1))",
                &[&max],
            )
            .await?
        }
        other => {
            return Err(storage(format!(
                "eviction policy {other:?} is not supported by the PostgreSQL store"
            )));
        }
    };
    if removed > 0 {
        tracing::debug!(removed, "postgres memory store: evicted items");
    }
    Ok(removed)
}
