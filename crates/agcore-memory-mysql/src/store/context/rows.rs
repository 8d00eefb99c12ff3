//! Sequence membership rows (`agcore_item_context`) as writers change them:
//! the sequences a write touches are locked first ([`lock_groups`]), items
//! join ([`enter`]) and leave ([`leave`]) their sequence, and every position
//! where the sequence changed is kept in [`Changes`] for
//! [`settle()`](super::settle()).

use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    /// Sequences whose `agcore_item_groups` row this transaction holds.
    locked: BTreeSet<Vec<u8>>,
    /// Change of the number of members of any sequence.
    pub(crate) grouped: i64,
    /// Change of the summed field lengths.
    pub(crate) context_len: i64,
}

impl Changes {
    /// Whether no sequence changed.
    pub(crate) fn is_empty(&self) -> bool {
        self.at.is_empty() && self.grouped == 0 && self.context_len == 0
    }
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

/// The sequences the stored items with these ids belong to (read without
/// locks, to lock them before the items' rows).
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn groups_of(tx: &mut Transaction<'_>, ids: &[Value]) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for chunk in ids.chunks(CHUNK) {
        let rows: Vec<Vec<u8>> = tx
            .exec(
                format!(
                    "SELECT x.grp FROM agcore_items i JOIN agcore_item_context x ON x.doc = i.doc
                     WHERE i.id IN ({})",
                    marks(chunk.len(), "?")
                ),
                Params::Positional(chunk.to_vec()),
            )
            .await?;
        out.extend(rows);
    }
    Ok(out)
}

/// A new member: `(doc, grp, created_s, created_ns, id)`.
pub(crate) type Joining = (i64, Vec<u8>, i64, i64, Vec<u8>);

/// Adds `members` to their sequences (locked by the caller) with empty
/// fields, which [`settle()`](super::settle()) then derives.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn enter(
    tx: &mut Transaction<'_>,
    changes: &mut Changes,
    members: Vec<Joining>,
) -> Result<()> {
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
    for (_, grp, s, ns, id) in members {
        changes.grouped += 1;
        changes.at.entry(grp).or_default().push((s, ns, id));
    }
    Ok(())
}

/// Takes the items `docs` out of their sequences (locking any sequence not
/// locked yet).
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn leave(
    tx: &mut Transaction<'_>,
    changes: &mut Changes,
    docs: &[i64],
) -> Result<()> {
    for chunk in docs.chunks(CHUNK) {
        let params: Vec<Value> = chunk.iter().map(|d| Value::Int(*d)).collect();
        let rows: Vec<Row> = tx
            .exec(
                format!(
                    "SELECT grp, created_s, created_ns, id, context_len FROM agcore_item_context
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

/// The `doc` of each id of `members` (`(id, …)`), by id: the row numbers
/// of items just inserted.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn docs_of<T>(
    tx: &mut Transaction<'_>,
    members: &[(Vec<u8>, T, i64, i64)],
) -> Result<HashMap<Vec<u8>, i64>> {
    let mut out = HashMap::with_capacity(members.len());
    for chunk in members.chunks(CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let ids: Vec<Value> = chunk.iter().map(|m| Value::from(m.0.as_slice())).collect();
        let rows: Vec<(Vec<u8>, i64)> = tx
            .exec(
                format!("SELECT id, doc FROM agcore_items WHERE id IN ({marks})"),
                Params::Positional(ids),
            )
            .await?;
        out.extend(rows);
    }
    Ok(out)
}
