//! Sequence membership rows (`agcore_item_context`) as writers change them:
//! the sequences a write touches are locked first ([`lock_groups`]), items
//! join ([`enter`]: kept in [`Changes`] until [`settle()`](super::settle())
//! writes their rows with their fields) and leave ([`leave`]) their
//! sequence, and every position where the sequence changed is kept in
//! [`Changes`] for [`settle()`](super::settle()).

use std::collections::{BTreeMap, BTreeSet};

use agcore_search::doc_freq::{Field, WordChanges};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Transaction, Value};

use crate::error::Result;
use crate::row::take;

/// Rows per multi-row statement.
const CHUNK: usize = 500;

/// A position in a sequence, in list order: `(created_s, created_ns, id)`.
pub(crate) type Position = (i64, i64, Vec<u8>);

/// What a write transaction changed in the sequences so far.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Positions where members joined or left, per sequence (`grp`).
    pub(crate) at: BTreeMap<Vec<u8>, Vec<Position>>,
    /// Members that joined, per sequence, whose rows are not written yet.
    pub(crate) joining: BTreeMap<Vec<u8>, Vec<Joining>>,
    /// Sequences whose `agcore_item_groups` row this transaction holds.
    locked: BTreeSet<Vec<u8>>,
    /// Change of the number of members of any sequence.
    pub(crate) grouped: i64,
    /// Change of the summed field lengths.
    pub(crate) context_len: i64,
}

fn marks(n: usize, one: &str) -> String {
    vec![one; n].join(", ")
}

/// Locks the `agcore_item_groups` rows of `groups` not locked yet, in
/// order (creating missing ones): writers of one sequence take turns.
///
/// # Errors
/// [`crate::MysqlError`] from the server (a deadlock is retried by the
/// caller's transaction loop).
pub(crate) async fn lock_groups(
    tx: &mut Transaction<'_>,
    changes: &mut Changes,
    groups: impl IntoIterator<Item = Vec<u8>>,
) -> Result<()> {
    let new: BTreeSet<Vec<u8>> = groups
        .into_iter()
        .filter(|g| !changes.locked.contains(g))
        .collect();
    let new: Vec<Vec<u8>> = new.into_iter().collect();
    for chunk in new.chunks(CHUNK) {
        // A duplicate key of `INSERT … ON DUPLICATE KEY UPDATE` takes an
        // exclusive lock, a new row is locked by its insert.
        tx.exec_drop(
            format!(
                "INSERT INTO agcore_item_groups (grp) VALUES {} ON DUPLICATE KEY UPDATE grp = grp",
                marks(chunk.len(), "(?)")
            ),
            Params::Positional(chunk.iter().map(|g| Value::from(g.as_slice())).collect()),
        )
        .await?;
    }
    changes.locked.extend(new);
    Ok(())
}

/// What is stored under these ids, read without locks (to lock the
/// sequences before the items' rows): whether any of them is stored, and
/// the sequences of those that are in one.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn groups_of(
    tx: &mut Transaction<'_>,
    ids: &[Value],
) -> Result<(bool, Vec<Vec<u8>>)> {
    let (mut any, mut out) = (false, Vec::new());
    for chunk in ids.chunks(CHUNK) {
        let rows: Vec<Option<Vec<u8>>> = tx
            .exec(
                format!(
                    "SELECT x.grp FROM agcore_items i LEFT JOIN agcore_item_context x ON x.doc = i.doc
                     WHERE i.id IN ({})",
                    marks(chunk.len(), "?")
                ),
                Params::Positional(chunk.to_vec()),
            )
            .await?;
        any |= !rows.is_empty();
        out.extend(rows.into_iter().flatten());
    }
    Ok((any, out))
}

/// A member joining its sequence: its row number, sequence and position,
/// and its own index words and length.
#[derive(Debug, Clone)]
pub(crate) struct Joining {
    pub(crate) doc: i64,
    pub(crate) grp: Vec<u8>,
    pub(crate) position: Position,
    pub(crate) terms: String,
    pub(crate) len: i64,
}

/// Adds `members` to their sequences (locked by the caller): kept in
/// `changes`, their rows written with their fields by
/// [`settle()`](super::settle()).
pub(crate) fn enter(changes: &mut Changes, members: Vec<Joining>) {
    for member in members {
        changes.grouped += 1;
        changes
            .at
            .entry(member.grp.clone())
            .or_default()
            .push(member.position.clone());
        changes
            .joining
            .entry(member.grp.clone())
            .or_default()
            .push(member);
    }
}

/// A membership row with an empty field: `(doc, grp, created_s,
/// created_ns, id)`.
pub(crate) type Membership = (i64, Vec<u8>, i64, i64, Vec<u8>);

/// Inserts `members` with empty fields (the rebuild derives them after).
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn insert_empty(tx: &mut Transaction<'_>, members: &[Membership]) -> Result<()> {
    for chunk in members.chunks(CHUNK) {
        let mut params = Vec::with_capacity(chunk.len() * 5);
        for (doc, grp, s, ns, id) in chunk {
            params.extend([
                Value::Int(*doc),
                Value::from(grp.as_slice()),
                Value::Int(*s),
                Value::Int(*ns),
                Value::from(id.as_slice()),
            ]);
        }
        tx.exec_drop(
            format!(
                "INSERT INTO agcore_item_context (doc, grp, created_s, created_ns, id, context_len, context_terms)
                 VALUES {}",
                marks(chunk.len(), "(?, ?, ?, ?, ?, 0, '')")
            ),
            Params::Positional(params),
        )
        .await?;
    }
    Ok(())
}

/// Takes the items `docs` out of their sequences (locking any sequence not
/// locked yet), recording their emptied context fields in `words`.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn leave(
    tx: &mut Transaction<'_>,
    changes: &mut Changes,
    docs: &[i64],
    words: &mut WordChanges,
) -> Result<()> {
    // Members that joined in this transaction have no row yet.
    let gone: std::collections::HashSet<i64> = docs.iter().copied().collect();
    for members in changes.joining.values_mut() {
        let before = members.len();
        members.retain(|m| !gone.contains(&m.doc));
        changes.grouped -= i64::try_from(before - members.len()).unwrap_or(0);
    }
    for chunk in docs.chunks(CHUNK) {
        let params: Vec<Value> = chunk.iter().map(|d| Value::Int(*d)).collect();
        let rows: Vec<Row> = tx
            .exec(
                format!(
                    "SELECT grp, created_s, created_ns, id, context_len, context_terms
                     FROM agcore_item_context
                     WHERE doc IN ({}) FOR UPDATE",
                    marks(chunk.len(), "?")
                ),
                Params::Positional(params.clone()),
            )
            .await?;
        if rows.is_empty() {
            continue;
        }
        let mut left = Vec::with_capacity(rows.len());
        for mut row in rows {
            let grp: Vec<u8> = take(&mut row, 0)?;
            let position: Position = (take(&mut row, 1)?, take(&mut row, 2)?, take(&mut row, 3)?);
            let context_len: i64 = take(&mut row, 4)?;
            let context_terms: String = take(&mut row, 5)?;
            words.was(&position.2, Field::Context, &context_terms);
            words.set(&position.2, Field::Context, String::new());
            left.push((grp, position, context_len));
        }
        lock_groups(tx, changes, left.iter().map(|l| l.0.clone())).await?;
        tx.exec_drop(
            format!(
                "DELETE FROM agcore_item_context WHERE doc IN ({})",
                marks(chunk.len(), "?")
            ),
            Params::Positional(params),
        )
        .await?;
        for (grp, position, context_len) in left {
            changes.grouped -= 1;
            changes.context_len -= context_len;
            changes.at.entry(grp).or_default().push(position);
        }
    }
    Ok(())
}
