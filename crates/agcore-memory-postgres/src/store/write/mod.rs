//! Writes: batched upserts with their postings, context fields and
//! statistics in one transaction ([`upsert`]), deletes and eviction
//! ([`delete()`], [`evict`]); each ends with
//! [`settle()`](super::context::settle()), which writes the postings and adds
//! the statistics' change.

mod delete;

use std::collections::{BTreeMap, HashMap, HashSet};

use agcore_memory::MemoryItem;
use agcore_memory::retriever::{ContextField, MAX_STORED_WINDOW};
use agcore_search::collection::term_counts;
use agcore_search::index_terms;
use deadpool_postgres::Transaction;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::context::{self, Fresh, Locked, Position};
use super::rows::filterable;
use super::stats::Delta;
use crate::error::{Result, storage};
use agcore_memory::sql_store::{last_by_id, split_time};
pub(crate) use delete::{delete, evict};

/// One item ready to write: its columns, its own terms and its sequence.
struct Prepared {
    item: MemoryItem,
    meta: serde_json::Value,
    metadata: String,
    len: i32,
    terms: BTreeMap<String, i32>,
    group: Option<String>,
}

fn prepare(item: MemoryItem, context: Option<&ContextField>) -> Result<Prepared> {
    let tokens = index_terms(&item.content);
    let len = i32::try_from(tokens.len())
        .map_err(|_| storage(format!("postgres: `{}` has too many terms", item.id)))?;
    let terms = term_counts(tokens);
    Ok(Prepared {
        meta: filterable(&item.metadata),
        metadata: serde_json::to_string(&item.metadata)?,
        group: context.and_then(|c| c.group_of(&item)),
        item,
        len,
        terms,
    })
}

impl Prepared {
    /// Its place in its sequence, if in one.
    fn position(&self) -> Option<Position> {
        let (secs, nanos) = split_time(self.item.created_at);
        self.group.clone().map(|grp| Position {
            grp,
            secs,
            nanos,
            id: self.item.id.clone(),
        })
    }
}

/// Writes the rows of `batch` with `statement` (an `INSERT … SELECT * FROM
/// unnest($1 … $8)` returning `id, doc`), recording their row numbers. The
/// request is sent when the future is first polled (pipelining).
async fn write_rows(
    tx: &Transaction<'_>,
    statement: &Statement,
    batch: &[&Prepared],
    docs: &mut HashMap<String, i64>,
) -> Result<()> {
    let ids: Vec<&str> = batch.iter().map(|p| p.item.id.as_str()).collect();
    let contents: Vec<&[u8]> = batch.iter().map(|p| p.item.content.as_bytes()).collect();
    let metadata: Vec<&str> = batch.iter().map(|p| p.metadata.as_str()).collect();
    let metas: Vec<&serde_json::Value> = batch.iter().map(|p| &p.meta).collect();
    let (secs, nanos): (Vec<i64>, Vec<i32>) =
        batch.iter().map(|p| split_time(p.item.created_at)).unzip();
    let lens: Vec<i32> = batch.iter().map(|p| p.len).collect();
    let groups: Vec<Option<&str>> = batch.iter().map(|p| p.group.as_deref()).collect();
    let params: [&(dyn ToSql + Sync); 8] = [
        &ids, &contents, &metadata, &metas, &secs, &nanos, &lens, &groups,
    ];
    for row in tx.query(statement, &params).await? {
        docs.insert(row.try_get(0)?, row.try_get(1)?);
    }
    Ok(())
}

const ROWS: &str = "SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[], $4::jsonb[], \
                    $5::int8[], $6::int4[], $7::int4[], $8::text[])";

/// Upserts `items` (validated by the caller) in `tx` and adds the
/// statistics' change to counter row `shard`: the last of several items
/// with one id wins, as if saved in order. Items get their sequence and
/// field under `context`, and the fields around their old and new places
/// are refreshed.
pub(crate) async fn upsert(
    tx: &Transaction<'_>,
    items: Vec<MemoryItem>,
    context: Option<&ContextField>,
    shard: i16,
) -> Result<()> {
    // Last one wins; id order keeps row locks in one order across writers.
    let batch = last_by_id(items)
        .into_iter()
        .map(|item| prepare(item, context))
        .collect::<Result<Vec<_>>>()?;
    let ids: Vec<&str> = batch.iter().map(|p| p.item.id.as_str()).collect();
    let groups: Vec<&str> = batch.iter().filter_map(|p| p.group.as_deref()).collect();
    let all: Vec<&Prepared> = batch.iter().collect();
    // Row numbers of the written rows, by id.
    let mut docs: HashMap<String, i64> = HashMap::with_capacity(batch.len());
    let mut locked = Locked::default();
    let insert = tx
        .prepare_cached(&format!(
            "INSERT INTO agcore_items (id, content, metadata, meta, created_s, created_ns, len, grp)
             {ROWS} ON CONFLICT (id) DO NOTHING RETURNING id, doc"
        ))
        .await?;
    // The sequences' locks, then the new rows: one round trip.
    match context {
        Some(_) => {
            let lock = context::lock_statement(tx, Some("i.id = ANY($1)"), 1).await?;
            let stored: [&(dyn ToSql + Sync); 1] = [&ids];
            tokio::try_join!(
                locked.take(tx, &lock, &groups, &stored),
                write_rows(tx, &insert, &all, &mut docs),
            )?;
        }
        None => write_rows(tx, &insert, &all, &mut docs).await?,
    }
    let inserted: HashSet<String> = docs.keys().cloned().collect();
    let mut delta = Delta {
        docs: i64::try_from(inserted.len()).unwrap_or(0),
        len: batch.iter().map(|p| i64::from(p.len)).sum(),
        grouped: i64::try_from(groups.len()).unwrap_or(0),
        context_len: 0,
    };
    let mut moved: Vec<Position> = batch.iter().filter_map(Prepared::position).collect();
    let rest: Vec<&Prepared> = batch
        .iter()
        .filter(|p| !inserted.contains(&p.item.id))
        .collect();
    if !rest.is_empty() {
        let mut step = Step {
            locked: &mut locked,
            moved: &mut moved,
            delta: &mut delta,
            docs: &mut docs,
        };
        replace_stored(tx, &rest, context.is_some(), &mut step).await?;
    }
    let fresh = fresh_rows(batch, &docs)?;
    context::settle(
        tx,
        ContextField::stored_window(context, MAX_STORED_WINDOW),
        (moved, fresh),
        shard,
        delta,
    )
    .await
}

/// What a step of [`upsert`] updates as it goes.
struct Step<'s> {
    locked: &'s mut Locked,
    moved: &'s mut Vec<Position>,
    delta: &'s mut Delta,
    /// Row numbers of the written rows, by id.
    docs: &'s mut HashMap<String, i64>,
}

/// Replaces the stored rows of `rest` (ids the insert skipped): their old
/// lengths and places leave the statistics and join `moved` (their
/// sequences locked when `sequences`), their postings are deleted, and the
/// rows are written again.
///
/// # Errors
/// [`crate::PostgresError`] from the server.
async fn replace_stored(
    tx: &Transaction<'_>,
    rest: &[&Prepared],
    sequences: bool,
    step: &mut Step<'_>,
) -> Result<()> {
    let existing: Vec<&str> = rest.iter().map(|p| p.item.id.as_str()).collect();
    let old = tx
        .query(
            "SELECT len::int8, doc, grp, created_s, created_ns, id, context_len::int8
             FROM agcore_items WHERE id = ANY($1) ORDER BY id FOR UPDATE",
            &[&existing],
        )
        .await?;
    let mut old_docs = Vec::with_capacity(old.len());
    for row in &old {
        step.delta.len -= row.try_get::<_, i64>(0)?;
        old_docs.push(row.try_get::<_, i64>(1)?);
        if let Some(grp) = row.try_get::<_, Option<String>>(2)? {
            step.delta.grouped -= 1;
            step.moved.push(Position {
                grp,
                secs: row.try_get(3)?,
                nanos: row.try_get(4)?,
                id: row.try_get(5)?,
            });
        }
        step.delta.context_len -= row.try_get::<_, i64>(6)?;
    }
    if sequences {
        let groups: Vec<&str> = step.moved.iter().map(|p| p.grp.as_str()).collect();
        step.locked.ensure(tx, &groups).await?;
    }
    // A row deleted meanwhile by another writer is inserted again below.
    step.delta.docs += i64::try_from(existing.len() - old.len()).unwrap_or(0);
    tx.execute(
        "DELETE FROM agcore_postings WHERE doc = ANY($1)",
        &[&old_docs],
    )
    .await?;
    let update = tx
        .prepare_cached(&format!(
            "INSERT INTO agcore_items AS i (id, content, metadata, meta, created_s, created_ns, len, grp)
             {ROWS} ON CONFLICT (id) DO UPDATE SET content = EXCLUDED.content,
                 metadata = EXCLUDED.metadata, meta = EXCLUDED.meta,
                 created_s = EXCLUDED.created_s, created_ns = EXCLUDED.created_ns,
                 len = EXCLUDED.len, grp = EXCLUDED.grp, context_len = 0
             RETURNING id, doc"
        ))
        .await?;
    write_rows(tx, &update, rest, step.docs).await
}

/// The written rows of `batch`, to be indexed from scratch.
///
/// # Errors
/// [`crate::PostgresError`] when a row has no row number (not written).
fn fresh_rows(batch: Vec<Prepared>, docs: &HashMap<String, i64>) -> Result<Vec<Fresh>> {
    let mut fresh = Vec::with_capacity(batch.len());
    for p in batch {
        let doc = docs
            .get(&p.item.id)
            .copied()
            .ok_or_else(|| storage(format!("postgres: `{}` was not written", p.item.id)))?;
        // Its postings are written afresh: no stored field to compare.
        fresh.push(Fresh {
            doc,
            terms: p.terms,
            len: i64::from(p.len),
            grouped: p.group.is_some(),
            stored: None,
        });
    }
    Ok(fresh)
}
