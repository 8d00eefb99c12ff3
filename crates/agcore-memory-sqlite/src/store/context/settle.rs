//! Keeping the context fields current inside a write transaction: after a
//! step of the writer (an upsert batch, a deletion, an eviction) has changed
//! rows, the rows it wrote are indexed with their fields and every row whose
//! neighbours changed gets its field (and postings) again.
//!
//! Which rows can change: a row's field is its `window` neighbours on each
//! side, so it changes only when a row appears, leaves or changes within
//! that window — and then, in the final order, the row is within `window`
//! of that position. So the neighbours of every old and new position of the
//! changed rows, looked up after the step's row writes, are all the rows
//! whose field may differ; each is compared with its stored field.

use std::collections::{BTreeSet, HashSet};

use rusqlite::{Connection, OptionalExtension, params};

use super::neighbours::{Position, around, context_at};
use crate::error::Result;
use crate::impact::{self, FieldDoc};
use crate::store::search::STORE_SCOPE;

/// A row the step wrote, to be indexed from scratch.
#[derive(Debug)]
pub(crate) struct Fresh {
    pub(crate) pk: i64,
    /// Its `terms` column.
    pub(crate) terms: String,
    /// Its place in its sequence; `None` when in none.
    pub(crate) at: Option<Position>,
    /// What its `context_terms` column holds now.
    pub(crate) stored_context: String,
}

/// What one write step changed.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Index entries the step invalidated, as indexed: `(pk, terms,
    /// context field)` (the rows are gone or in [`Self::fresh`]).
    pub(crate) removed: Vec<(i64, String, Option<String>)>,
    /// Rows written by the step (not indexed).
    pub(crate) fresh: Vec<Fresh>,
    /// Positions where a row appeared, left or changed.
    pub(crate) moved: Vec<Position>,
}

impl Changes {
    /// Whether the step changed nothing the index holds.
    pub(crate) fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.fresh.is_empty() && self.moved.is_empty()
    }
}

/// A stored row whose field may be stale: its terms, field and position.
type Stored = (String, String, Option<String>, i64, i64, String);

/// Applies `changes` to the store's index: drops the invalidated entries,
/// refreshes the fields of the rows around the moved positions, indexes the
/// fresh rows with their fields. Run it in the step's transaction, after
/// its row writes.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn settle(conn: &Connection, window: usize, changes: Changes) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let Changes {
        mut removed,
        fresh,
        mut moved,
    } = changes;
    let fresh_pks: HashSet<i64> = fresh.iter().map(|f| f.pk).collect();
    moved.sort_unstable();
    moved.dedup();
    let mut stale: BTreeSet<i64> = BTreeSet::new();
    for at in &moved {
        for (pk, _) in around(conn, at, window)? {
            if !fresh_pks.contains(&pk) {
                stale.insert(pk);
            }
        }
    }
    let mut added: Vec<(i64, String, Option<String>)> = Vec::with_capacity(fresh.len());
    let mut update =
        conn.prepare_cached("UPDATE memory_items SET context_terms = ?2 WHERE pk = ?1")?;
    for pk in stale {
        let row: Option<Stored> = conn
            .prepare_cached(
                "SELECT terms, context_terms, grp, created_secs, created_nanos, id \
                 FROM memory_items WHERE pk = ?1",
            )?
            .query_row([pk], |r| Stored::try_from(r))
            .optional()?;
        let Some((terms, old, Some(grp), secs, nanos, id)) = row else {
            continue;
        };
        let at = Position {
            grp,
            secs,
            nanos,
            id,
        };
        let new = context_at(conn, &at, window)?;
        if new != old {
            update.execute(params![pk, new])?;
            removed.push((pk, terms.clone(), Some(old)));
            added.push((pk, terms, Some(new)));
        }
    }
    for f in fresh {
        let context = match &f.at {
            Some(at) => Some(context_at(conn, at, window)?),
            None => None,
        };
        let now = context.as_deref().unwrap_or("");
        if now != f.stored_context {
            update.execute(params![f.pk, now])?;
        }
        added.push((f.pk, f.terms, context));
    }
    impact::remove_fields(conn, STORE_SCOPE, &field_docs(&removed), 0)?;
    impact::add_fields(conn, STORE_SCOPE, &field_docs(&added), 0)
}

/// Entries as the index takes them.
fn field_docs(entries: &[(i64, String, Option<String>)]) -> Vec<FieldDoc<'_>> {
    entries
        .iter()
        .map(|(pk, terms, context)| FieldDoc {
            doc: *pk,
            terms,
            context: context.as_deref(),
        })
        .collect()
}
