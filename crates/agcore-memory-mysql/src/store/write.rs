//! Writes: batched upserts and deletes (eviction is [`super::evict`]), each adding its change
//! of the statistics (and the fields it rewrote, for the document
//! frequencies) to an [`ItemDelta`] that the transaction writes at
//! its end ([`stats::apply`](super::stats::apply)). The `FULLTEXT` index
//! follows the rows by itself; with a context field, each write also moves
//! items into and out of their sequences and records where ([`Changes`])
//! for [`context::settle`](super::context::settle()).

use std::collections::HashMap;

use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::last_by_id;
use agcore_search::doc_freq::Field;
use agcore_search::index_terms;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Transaction, Value};

use super::context::{self, Changes, Joining};
use super::stats::ItemDelta;
use crate::error::{Result, storage};
use crate::row::{split_time, take};
use crate::terms;

/// Rows per multi-row `INSERT` (well under `max_allowed_packet` for items
/// of a few KiB; larger items only make fewer rows fit, never fail).
const INSERT_CHUNK: usize = 500;

/// One item ready to write, analysed once however often its transaction
/// runs: its column values, its index words, and its sequence.
#[derive(Clone)]
pub struct Prepared {
    id: String,
    values: [Value; 7],
    len: i64,
    /// Its index words (`terms`).
    terms: String,
    /// `(grp, created_s, created_ns)` when in a sequence.
    member: Option<(Vec<u8>, i64, i64)>,
}

impl Prepared {
    /// Its index words, as the `terms` column holds them.
    pub(crate) fn terms(&self) -> &str {
        &self.terms
    }

    /// Its column values, moved out (written once; `NULL`s are left).
    fn take_values(&mut self) -> [Value; 7] {
        std::mem::replace(&mut self.values, std::array::from_fn(|_| Value::NULL))
    }
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
            Value::from(terms.as_str()),
        ],
        id: item.id,
        len,
        terms,
    })
}

/// `items` (validated by the caller) ready to write: the last of several
/// with one id kept, in id order, each analysed once.
///
/// # Errors
/// A storage error for an item with more terms than an `i64` counts, or
/// metadata that does not serialise.
pub(crate) fn prepare_batch(
    items: Vec<MemoryItem>,
    context: Option<&ContextField>,
) -> Result<Vec<Prepared>> {
    last_by_id(items)
        .into_iter()
        .map(|item| prepare(item, context))
        .collect()
}

/// Upserts `batch` ([`prepare_batch`]: one item per id, the last of
/// several saved together, as if saved in order) in `tx`. With a
/// `context` field the sequences of the items (new and stored) are locked
/// first; then existing rows are locked (in id order, one order across
/// writers) — unless none of the ids was stored: a new id that another
/// writer inserts meanwhile makes the `INSERT` fail with a duplicate key,
/// and the caller runs the transaction again.
pub(crate) async fn upsert(
    tx: &mut Transaction<'_>,
    batch: Vec<Prepared>,
    context: Option<&ContextField>,
    changes: &mut Changes,
    delta: &mut ItemDelta,
) -> Result<()> {
    let ids: Vec<Value> = batch.iter().map(|p| Value::from(p.id.as_bytes())).collect();
    let mut any_stored = true;
    if context.is_some() {
        let (any, stored) = context::groups_of(tx, &ids).await?;
        any_stored = any;
        let new = batch
            .iter()
            .filter_map(|p| p.member.as_ref().map(|m| m.0.clone()));
        context::lock_groups(tx, changes, new.chain(stored)).await?;
    }
    let old = if any_stored {
        lock_stored(tx, &ids).await?
    } else {
        HashMap::new()
    };
    let (mut inserts, mut updates) = (Vec::new(), Vec::new());
    for p in batch {
        delta.len += p.len;
        let id = p.id.as_bytes();
        match old.get(id) {
            Some((old_len, doc, old_terms)) => {
                delta.words.was(id, Field::Own, old_terms);
                delta.words.set(id, Field::Own, p.terms.clone());
                delta.len -= old_len;
                updates.push((p, *doc));
            }
            None => {
                delta.words.set(id, Field::Own, p.terms.clone());
                delta.docs += 1;
                inserts.push(p);
            }
        }
    }
    let mut docs = write_rows(tx, &mut inserts, &mut updates).await?;
    if context.is_some() {
        let replaced: Vec<i64> = old.values().map(|(_, doc, _)| *doc).collect();
        context::leave(tx, changes, &replaced, &mut delta.words).await?;
        let members: Vec<Prepared> = inserts
            .into_iter()
            .chain(updates.into_iter().map(|(p, _)| p))
            .filter(|p| p.member.is_some())
            .collect();
        let unknown: Vec<Value> = members
            .iter()
            .filter(|p| !docs.contains_key(p.id.as_bytes()))
            .map(|p| Value::from(p.id.as_bytes()))
            .collect();
        docs.extend(docs_of(tx, &unknown).await?);
        let joining = members.into_iter().filter_map(|p| {
            let doc = *docs.get(p.id.as_bytes())?;
            let (grp, s, ns) = p.member?;
            Some(Joining {
                doc,
                grp,
                position: (s, ns, p.id.into_bytes()),
                terms: p.terms,
                len: p.len,
            })
        });
        context::enter(changes, joining.collect());
    }
    Ok(())
}

/// Inserts the new rows (many per statement) and rewrites the stored ones
/// (`(item, row number)`); the row numbers known by id (a multi-row insert
/// does not tell its rows' numbers: those are read later when needed).
async fn write_rows(
    tx: &mut Transaction<'_>,
    inserts: &mut [Prepared],
    updates: &mut [(Prepared, i64)],
) -> Result<HashMap<Vec<u8>, i64>> {
    let mut docs: HashMap<Vec<u8>, i64> = HashMap::new();
    for chunk in inserts.chunks_mut(INSERT_CHUNK) {
        let marks = vec!["(?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        let values: Vec<Value> = chunk.iter_mut().flat_map(Prepared::take_values).collect();
        tx.exec_drop(
            format!(
                "INSERT INTO agcore_items (id, content, metadata, created_s, created_ns, len, terms) VALUES {marks}"
            ),
            Params::Positional(values),
        )
        .await?;
        // One row: its number is in the server's reply.
        let doc = tx.last_insert_id().and_then(|doc| i64::try_from(doc).ok());
        if let ([p], Some(doc)) = (chunk, doc) {
            docs.insert(p.id.as_bytes().to_vec(), doc);
        }
    }
    for (p, doc) in updates.iter_mut() {
        let [id, content, metadata, secs, nanos, len, terms] = p.take_values();
        tx.exec_drop(
            "UPDATE agcore_items SET content = ?, metadata = ?, created_s = ?, created_ns = ?,
                 len = ?, terms = ? WHERE id = ?",
            Params::Positional(vec![content, metadata, secs, nanos, len, terms, id]),
        )
        .await?;
        docs.insert(p.id.as_bytes().to_vec(), *doc);
    }
    Ok(docs)
}

/// Locks the stored rows of `ids` (in id order); their `(len, doc, terms)`
/// by id.
async fn lock_stored(
    tx: &mut Transaction<'_>,
    ids: &[Value],
) -> Result<HashMap<Vec<u8>, (i64, i64, String)>> {
    let mut old = HashMap::new();
    for chunk in ids.chunks(INSERT_CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let rows: Vec<Row> = tx
            .exec(
                format!(
                    "SELECT id, len, doc, terms FROM agcore_items WHERE id IN ({marks}) ORDER BY id FOR UPDATE"
                ),
                Params::Positional(chunk.to_vec()),
            )
            .await?;
        for mut row in rows {
            let id: Vec<u8> = take(&mut row, 0)?;
            old.insert(
                id,
                (take(&mut row, 1)?, take(&mut row, 2)?, take(&mut row, 3)?),
            );
        }
    }
    Ok(old)
}

/// The row numbers of the stored items `ids`, by id.
async fn docs_of(tx: &mut Transaction<'_>, ids: &[Value]) -> Result<HashMap<Vec<u8>, i64>> {
    let mut out = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(INSERT_CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let rows: Vec<(Vec<u8>, i64)> = tx
            .exec(
                format!("SELECT id, doc FROM agcore_items WHERE id IN ({marks})"),
                Params::Positional(chunk.to_vec()),
            )
            .await?;
        out.extend(rows);
    }
    Ok(out)
}

/// Deletes the items `select_sql` selects (`doc, len, id, terms`, locked),
/// and their share of the statistics, taking them out of their sequences
/// when `changes` (a context field) is given; returns how many.
pub(super) async fn delete_selected(
    tx: &mut Transaction<'_>,
    select_sql: &str,
    params: Params,
    changes: Option<&mut Changes>,
    delta: &mut ItemDelta,
) -> Result<usize> {
    let rows: Vec<(i64, i64, Vec<u8>, String)> = tx.exec(select_sql, params).await?;
    if rows.is_empty() {
        return Ok(0);
    }
    for (_, _, id, terms) in &rows {
        delta.words.was(id, Field::Own, terms);
        delta.words.set(id, Field::Own, String::new());
    }
    if let Some(changes) = changes {
        let docs: Vec<i64> = rows.iter().map(|(doc, ..)| *doc).collect();
        context::leave(tx, changes, &docs, &mut delta.words).await?;
    }
    for chunk in rows.chunks(INSERT_CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let docs: Vec<Value> = chunk.iter().map(|(doc, ..)| Value::Int(*doc)).collect();
        tx.exec_drop(
            format!("DELETE FROM agcore_items WHERE doc IN ({marks})"),
            Params::Positional(docs),
        )
        .await?;
    }
    let removed = rows.len();
    delta.docs -= i64::try_from(removed).unwrap_or(0);
    delta.len -= rows.iter().map(|(_, len, ..)| len).sum::<i64>();
    Ok(removed)
}

/// Deletes one item (after locking its sequence, when `changes` is given).
pub(crate) async fn delete(
    tx: &mut Transaction<'_>,
    id: &str,
    mut changes: Option<&mut Changes>,
    delta: &mut ItemDelta,
) -> Result<usize> {
    let ids = [Value::from(id.as_bytes())];
    if let Some(changes) = changes.as_deref_mut() {
        let (_, groups) = context::groups_of(tx, &ids).await?;
        context::lock_groups(tx, changes, groups).await?;
    }
    delete_selected(
        tx,
        "SELECT doc, len, id, terms FROM agcore_items WHERE id = ? FOR UPDATE",
        Params::Positional(ids.to_vec()),
        changes,
        delta,
    )
    .await
}
