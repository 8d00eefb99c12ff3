//! Writes: batched upserts with their statistics in one transaction,
//! deletes, and eviction. The `FULLTEXT` index follows the rows by itself;
//! with a context field, each write also moves items into and out of their
//! sequences and records where ([`Changes`]) for
//! [`context::settle`](super::context::settle()).

use std::collections::{BTreeMap, HashMap};

use agcore_memory::retriever::{ContextField, index_terms};
use agcore_memory::{EvictionPolicy, MemoryItem};
use chrono::Utc;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Transaction, Value};

use super::context::{self, Changes, Joining};
use crate::error::{Result, storage};
use crate::row::{split_time, take};
use crate::terms;

/// Rows per multi-row `INSERT` (well under `max_allowed_packet` for items
/// of a few KiB; larger items only make fewer rows fit, never fail).
const INSERT_CHUNK: usize = 500;

/// One item ready to write: its column values, and its sequence.
struct Prepared {
    id: String,
    values: [Value; 7],
    len: i64,
    /// `(grp, created_s, created_ns)` when in a sequence.
    member: Option<(Vec<u8>, i64, i64)>,
}

fn prepare(item: MemoryItem, context: Option<&ContextField>) -> Result<Prepared> {
    let grp = context.and_then(|c| context::group_of(c, &item));
    let tokens = index_terms(&item.content);
    let len = i64::try_from(tokens.len())
        .map_err(|_| storage(format!("mysql: `{}` has too many terms", item.id)))?;
    let (secs, nanos) = split_time(item.created_at);
    let metadata = serde_json::to_string(&item.metadata)?;
    let terms = terms::column("", &tokens);
    Ok(Prepared {
        member: grp.map(|g| (g, secs, i64::from(nanos))),
        values: [
            Value::from(item.id.as_bytes()),
            Value::from(item.content.into_bytes()),
            Value::from(metadata),
            Value::Int(secs),
            Value::Int(i64::from(nanos)),
            Value::Int(len),
            Value::from(terms),
        ],
        id: item.id,
        len,
    })
}

/// Upserts `items` (validated by the caller) in `tx`: the last of several
/// items with one id wins, as if saved in order. With a `context` field the
/// sequences of the items (new and stored) are locked first; then existing
/// rows are locked (in id order, one order across writers); a new id that
/// another writer inserts meanwhile makes the `INSERT` fail with a
/// duplicate key, and the caller runs the transaction again.
pub(crate) async fn upsert(
    tx: &mut Transaction<'_>,
    items: Vec<MemoryItem>,
    shard: i16,
    context: Option<&ContextField>,
    changes: &mut Changes,
) -> Result<()> {
    let mut by_id: BTreeMap<String, MemoryItem> = BTreeMap::new();
    for item in items {
        by_id.insert(item.id.clone(), item);
    }
    let batch = by_id
        .into_values()
        .map(|item| prepare(item, context))
        .collect::<Result<Vec<_>>>()?;
    let ids: Vec<Value> = batch.iter().map(|p| Value::from(p.id.as_bytes())).collect();
    if context.is_some() {
        let stored = context::groups_of(tx, &ids).await?;
        let new = batch
            .iter()
            .filter_map(|p| p.member.as_ref().map(|m| m.0.clone()));
        context::lock_groups(tx, changes, new.chain(stored)).await?;
    }
    let mut old: HashMap<Vec<u8>, (i64, i64)> = HashMap::new();
    for chunk in ids.chunks(INSERT_CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let rows: Vec<Row> = tx
            .exec(
                format!(
                    "SELECT id, len, doc FROM agcore_items WHERE id IN ({marks}) ORDER BY id FOR UPDATE"
                ),
                Params::Positional(chunk.to_vec()),
            )
            .await?;
        for mut row in rows {
            let id: Vec<u8> = take(&mut row, 0)?;
            old.insert(id, (take(&mut row, 1)?, take(&mut row, 2)?));
        }
    }
    let members: Vec<(Vec<u8>, Vec<u8>, i64, i64)> = batch
        .iter()
        .filter_map(|p| {
            let (grp, s, ns) = p.member.clone()?;
            Some((p.id.as_bytes().to_vec(), grp, s, ns))
        })
        .collect();
    let mut docs_delta = 0i64;
    let mut len_delta = 0i64;
    let (mut inserts, mut updates) = (Vec::new(), Vec::new());
    for p in batch {
        len_delta += p.len;
        match old.get(p.id.as_bytes()) {
            Some((old_len, _)) => {
                len_delta -= old_len;
                updates.push(p);
            }
            None => {
                docs_delta += 1;
                inserts.push(p);
            }
        }
    }
    for chunk in inserts.chunks(INSERT_CHUNK) {
        let marks = vec!["(?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        let values: Vec<Value> = chunk
            .iter()
            .flat_map(|p| p.values.iter().cloned())
            .collect();
        tx.exec_drop(
            format!(
                "INSERT INTO agcore_items (id, content, metadata, created_s, created_ns, len, terms) VALUES {marks}"
            ),
            Params::Positional(values),
        )
        .await?;
    }
    for p in updates {
        let [id, content, metadata, secs, nanos, len, terms] = p.values;
        tx.exec_drop(
            "UPDATE agcore_items SET content = ?, metadata = ?, created_s = ?, created_ns = ?,
                 len = ?, terms = ? WHERE id = ?",
            Params::Positional(vec![content, metadata, secs, nanos, len, terms, id]),
        )
        .await?;
    }
    adjust_stats(tx, shard, docs_delta, len_delta).await?;
    if context.is_some() {
        let replaced: Vec<i64> = old.values().map(|(_, doc)| *doc).collect();
        context::leave(tx, changes, &replaced).await?;
        let docs = context::docs_of(tx, &members).await?;
        let joining: Vec<Joining> = members
            .into_iter()
            .filter_map(|(id, grp, s, ns)| Some((*docs.get(&id)?, grp, s, ns, id)))
            .collect();
        context::enter(tx, changes, joining).await?;
    }
    Ok(())
}

/// Adds to the document count and total length (BM25 statistics).
pub(crate) async fn adjust_stats(
    tx: &mut Transaction<'_>,
    shard: i16,
    docs: i64,
    len: i64,
) -> Result<()> {
    if docs != 0 || len != 0 {
        tx.exec_drop(
            "UPDATE agcore_item_stats SET docs = docs + ?, total_len = total_len + ? WHERE shard = ?",
            (docs, len, shard),
        )
        .await?;
    }
    Ok(())
}

/// Deletes the items `select_sql` selects (`doc, len`, locked), and their
/// share of the statistics, taking them out of their sequences when
/// `changes` (a context field) is given; returns how many.
async fn delete_selected(
    tx: &mut Transaction<'_>,
    shard: i16,
    select_sql: &str,
    params: Params,
    changes: Option<&mut Changes>,
) -> Result<usize> {
    let rows: Vec<(i64, i64)> = tx.exec(select_sql, params).await?;
    if rows.is_empty() {
        return Ok(0);
    }
    if let Some(changes) = changes {
        let docs: Vec<i64> = rows.iter().map(|(doc, _)| *doc).collect();
        context::leave(tx, changes, &docs).await?;
    }
    for chunk in rows.chunks(INSERT_CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let docs: Vec<Value> = chunk.iter().map(|(doc, _)| Value::Int(*doc)).collect();
        tx.exec_drop(
            format!("DELETE FROM agcore_items WHERE doc IN ({marks})"),
            Params::Positional(docs),
        )
        .await?;
    }
    let removed = rows.len();
    let len: i64 = rows.iter().map(|(_, len)| len).sum();
    adjust_stats(tx, shard, -i64::try_from(removed).unwrap_or(0), -len).await?;
    Ok(removed)
}

/// Deletes one item (after locking its sequence, when `changes` is given).
pub(crate) async fn delete(
    tx: &mut Transaction<'_>,
    id: &str,
    shard: i16,
    mut changes: Option<&mut Changes>,
) -> Result<usize> {
    let ids = [Value::from(id.as_bytes())];
    if let Some(changes) = changes.as_deref_mut() {
        let groups = context::groups_of(tx, &ids).await?;
        context::lock_groups(tx, changes, groups).await?;
    }
    delete_selected(
        tx,
        shard,
        "SELECT doc, len FROM agcore_items WHERE id = ? FOR UPDATE",
        Params::Positional(ids.to_vec()),
        changes,
    )
    .await
}

/// Applies the eviction policy in `tx` (taking evicted items out of their
/// sequences when `changes` is given); returns the items removed.
pub(crate) async fn evict(
    tx: &mut Transaction<'_>,
    policy: &EvictionPolicy,
    shard: i16,
    changes: Option<&mut Changes>,
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
            delete_selected(
                tx,
                shard,
                "SELECT doc, len FROM agcore_items
                 WHERE created_s < ? OR (created_s = ? AND created_ns <= ?) FOR UPDATE",
                Params::Positional(vec![
                    Value::Int(s),
                    Value::Int(s),
                    Value::Int(i64::from(ns)),
                ]),
                changes,
            )
            .await?
        }
        EvictionPolicy::Capacity { max_items } => {
            let max = i64::try_from(*max_items).unwrap_or(i64::MAX);
            let count: i64 = tx
                .query_first("SELECT COUNT(*) FROM agcore_items")
                .await?
                .unwrap_or(0);
            let excess = count - max;
            if excess <= 0 {
                0
            } else {
                delete_selected(
                    tx,
                    shard,
                    "SELECT doc, len FROM agcore_items ORDER BY created_s, created_ns, id LIMIT ? FOR UPDATE",
                    Params::Positional(vec![Value::Int(excess)]),
                    changes,
                )
                .await?
            }
        }
        other => {
            return Err(storage(format!(
                "eviction policy {other:?} is not supported by the MySQL store"
            )));
        }
    };
    if removed > 0 {
        tracing::debug!(removed, "mysql memory store: evicted items");
    }
    Ok(removed)
}
