//! Writes: batched upserts with their postings and statistics in one
//! transaction, deletes, and eviction.

use std::collections::{BTreeMap, HashMap, HashSet};

use agcore_memory::retriever::index_terms;
use agcore_memory::{EvictionPolicy, MemoryItem};
use chrono::Utc;
use deadpool_postgres::Transaction;

use super::rows::{filterable, split_time};
use crate::error::{Result, storage};

/// One item ready to write: its columns and its postings.
struct Prepared {
    item: MemoryItem,
    meta: serde_json::Value,
    metadata: String,
    len: i32,
    terms: BTreeMap<String, i32>,
}

fn prepare(item: MemoryItem) -> Result<Prepared> {
    let tokens = index_terms(&item.content);
    let len = i32::try_from(tokens.len())
        .map_err(|_| storage(format!("postgres: `{}` has too many terms", item.id)))?;
    let mut terms = BTreeMap::new();
    for token in tokens {
        *terms.entry(token).or_insert(0) += 1;
    }
    Ok(Prepared {
        meta: filterable(&item.metadata),
        metadata: serde_json::to_string(&item.metadata)?,
        item,
        len,
        terms,
    })
}

/// Upserts `items` (validated by the caller) in `tx`: the last of several
/// items with one id wins, as if saved in order. Returns the rows written.
pub(crate) async fn upsert(
    tx: &Transaction<'_>,
    items: Vec<MemoryItem>,
    shard: i16,
) -> Result<usize> {
    // Last one wins; id order keeps row locks in one order across writers.
    let mut by_id: BTreeMap<String, MemoryItem> = BTreeMap::new();
    for item in items {
        by_id.insert(item.id.clone(), item);
    }
    let batch = by_id
        .into_values()
        .map(prepare)
        .collect::<Result<Vec<_>>>()?;
    let count = batch.len();
    let ids: Vec<&str> = batch.iter().map(|p| p.item.id.as_str()).collect();
    let contents: Vec<&[u8]> = batch.iter().map(|p| p.item.content.as_bytes()).collect();
    let metadata: Vec<&str> = batch.iter().map(|p| p.metadata.as_str()).collect();
    let metas: Vec<&serde_json::Value> = batch.iter().map(|p| &p.meta).collect();
    let (secs, nanos): (Vec<i64>, Vec<i32>) =
        batch.iter().map(|p| split_time(p.item.created_at)).unzip();
    let lens: Vec<i32> = batch.iter().map(|p| p.len).collect();

    // Document numbers of the written rows, by id.
    let mut docs: HashMap<String, i64> = HashMap::with_capacity(count);
    for row in tx
        .query(
            "INSERT INTO agcore_items (id, content, metadata, meta, created_s, created_ns, len)
             SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[], $4::jsonb[], $5::int8[], $6::int4[], $7::int4[])
             ON CONFLICT (id) DO NOTHING RETURNING id, doc",
            &[&ids, &contents, &metadata, &metas, &secs, &nanos, &lens],
        )
        .await?
    {
        docs.insert(row.try_get(0)?, row.try_get(1)?);
    }
    let inserted: HashSet<String> = docs.keys().cloned().collect();
    let mut docs_delta = i64::try_from(inserted.len()).unwrap_or(0);
    let mut len_delta: i64 = batch.iter().map(|p| i64::from(p.len)).sum();

    let existing: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| !inserted.contains(*id))
        .collect();
    if !existing.is_empty() {
        let old = tx
            .query(
                "SELECT len::int8, doc FROM agcore_items WHERE id = ANY($1) ORDER BY id FOR UPDATE",
                &[&existing],
            )
            .await?;
        let mut old_docs = Vec::with_capacity(old.len());
        for row in &old {
            len_delta -= row.try_get::<_, i64>(0)?;
            old_docs.push(row.try_get::<_, i64>(1)?);
        }
        // A row deleted meanwhile by another writer is inserted again below.
        docs_delta += i64::try_from(existing.len() - old.len()).unwrap_or(0);
        tx.execute(
            "DELETE FROM agcore_postings WHERE doc = ANY($1)",
            &[&old_docs],
        )
        .await?;
        let rest: Vec<&Prepared> = batch
            .iter()
            .filter(|p| !inserted.contains(&p.item.id))
            .collect();
        let u_ids: Vec<&str> = rest.iter().map(|p| p.item.id.as_str()).collect();
        let u_contents: Vec<&[u8]> = rest.iter().map(|p| p.item.content.as_bytes()).collect();
        let u_metadata: Vec<&str> = rest.iter().map(|p| p.metadata.as_str()).collect();
        let u_metas: Vec<&serde_json::Value> = rest.iter().map(|p| &p.meta).collect();
        let (u_secs, u_nanos): (Vec<i64>, Vec<i32>) =
            rest.iter().map(|p| split_time(p.item.created_at)).unzip();
        let u_lens: Vec<i32> = rest.iter().map(|p| p.len).collect();
        for row in tx
            .query(
                "INSERT INTO agcore_items AS i (id, content, metadata, meta, created_s, created_ns, len)
                 SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[], $4::jsonb[], $5::int8[], $6::int4[], $7::int4[])
                 ON CONFLICT (id) DO UPDATE SET content = EXCLUDED.content, metadata = EXCLUDED.metadata,
                     meta = EXCLUDED.meta, created_s = EXCLUDED.created_s,
                     created_ns = EXCLUDED.created_ns, len = EXCLUDED.len
                 RETURNING id, doc",
                &[&u_ids, &u_contents, &u_metadata, &u_metas, &u_secs, &u_nanos, &u_lens],
            )
            .await?
        {
            docs.insert(row.try_get(0)?, row.try_get(1)?);
        }
    }

    let mut p_terms: Vec<&str> = Vec::new();
    let mut p_docs: Vec<i64> = Vec::new();
    let mut p_tfs: Vec<i32> = Vec::new();
    let mut p_lens: Vec<i32> = Vec::new();
    for p in &batch {
        let doc = docs
            .get(&p.item.id)
            .copied()
            .ok_or_else(|| storage(format!("postgres: `{}` was not written", p.item.id)))?;
        for (term, tf) in &p.terms {
            p_terms.push(term);
            p_docs.push(doc);
            p_tfs.push(*tf);
            p_lens.push(p.len);
        }
    }
    if !p_terms.is_empty() {
        tx.execute(
            "INSERT INTO agcore_postings (term, doc, tf, len)
             SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int4[])",
            &[&p_terms, &p_docs, &p_tfs, &p_lens],
        )
        .await?;
    }
    adjust_stats(tx, shard, docs_delta, len_delta).await?;
    Ok(count)
}

/// Adds to the document count and total length (BM25 statistics).
pub(crate) async fn adjust_stats(
    tx: &Transaction<'_>,
    shard: i16,
    docs: i64,
    len: i64,
) -> Result<()> {
    if docs != 0 || len != 0 {
        tx.execute(
            "UPDATE agcore_item_stats SET docs = docs + $1, total_len = total_len + $2 WHERE shard = $3",
            &[&docs, &len, &shard],
        )
        .await?;
    }
    Ok(())
}

/// Deletes the items `delete_sql` deletes (returning `len, doc`), their
/// postings and their share of the statistics.
async fn delete_returning(
    tx: &Transaction<'_>,
    shard: i16,
    delete_sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<usize> {
    let rows = tx.query(delete_sql, params).await?;
    let mut lens = Vec::with_capacity(rows.len());
    let mut docs = Vec::with_capacity(rows.len());
    for row in &rows {
        lens.push(i64::from(row.try_get::<_, i32>(0)?));
        docs.push(row.try_get::<_, i64>(1)?);
    }
    if !docs.is_empty() {
        tx.execute("DELETE FROM agcore_postings WHERE doc = ANY($1)", &[&docs])
            .await?;
    }
    let removed = lens.len();
    adjust_stats(
        tx,
        shard,
        -i64::try_from(removed).unwrap_or(0),
        -lens.iter().sum::<i64>(),
    )
    .await?;
    Ok(removed)
}

/// Deletes one item and its postings.
pub(crate) async fn delete(tx: &Transaction<'_>, id: &str, shard: i16) -> Result<usize> {
    delete_returning(
        tx,
        shard,
        "DELETE FROM agcore_items WHERE id = $1 RETURNING len, doc",
        &[&id],
    )
    .await
}

/// Applies the eviction policy in `tx`; returns the items removed.
pub(crate) async fn evict(
    tx: &Transaction<'_>,
    policy: &EvictionPolicy,
    shard: i16,
) -> Result<usize> {
    let removed = match policy {
        EvictionPolicy::None => 0,
        EvictionPolicy::Ttl { ttl_secs } => {
            let ttl =
                chrono::Duration::seconds(i64::try_from(*ttl_secs).unwrap_or(i64::MAX / 1_000));
            let cutoff = Utc::now()
                .checked_sub_signed(ttl)
                .unwrap_or(chrono::DateTime::<Utc>::MIN_UTC);
            let (s, ns) = split_time(cutoff);
            delete_returning(
                tx,
                shard,
                "DELETE FROM agcore_items WHERE (created_s, created_ns) <= ($1, $2) RETURNING len, doc",
                &[&s, &ns],
            )
            .await?
        }
        EvictionPolicy::Capacity { max_items } => {
            let max = i64::try_from(*max_items).unwrap_or(i64::MAX);
            delete_returning(
                tx,
                shard,
                "DELETE FROM agcore_items WHERE id IN (
                     SELECT id FROM agcore_items ORDER BY created_s, created_ns, id
                     LIMIT GREATEST(0, (SELECT count(*) FROM agcore_items) - $1))
                 RETURNING len, doc",
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
