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

use std::collections::HashMap;

use agcore_search::contextual::spans::changed_spans;
use agcore_search::contextual::upkeep::{RunMember, SpaceJoined, changed, span};
use rusqlite::Connection;

use super::run::{Position, member, run, set_context};
use crate::error::Result;
use crate::impact::{self, FieldDoc};
use crate::store::search::STORE_SCOPE;

/// A row the step wrote, to be indexed from scratch.
#[derive(Debug)]
pub(crate) struct Fresh {
    pub(crate) pk: i64,
    /// Its `terms` column.
    pub(crate) terms: String,
    /// Its place in its sequence; `None` when in none. The place is also
    /// in [`Changes::moved`].
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

/// Index entries: `(pk, terms, context field)`.
type Entries = Vec<(i64, String, Option<String>)>;

/// Applies `changes` to the store's index: drops the invalidated entries,
/// derives again the fields of each changed sequence's run
/// ([`agcore_search::contextual::upkeep`]) and writes those that changed,
/// indexes the fresh rows with their fields. Run it in the step's
/// transaction, after its row writes.
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
        moved,
    } = changes;
    let mut fresh: HashMap<i64, Fresh> = fresh.into_iter().map(|f| (f.pk, f)).collect();
    let mut added: Entries = Vec::with_capacity(fresh.len());
    for (lo, hi) in changed_spans(moved, |at| &at.grp).values() {
        settle_run(
            conn,
            (lo, hi),
            window,
            &mut fresh,
            (&mut removed, &mut added),
        )?;
    }
    // Rows in no sequence (a row in one was settled with its run).
    for f in fresh.into_values() {
        if !f.stored_context.is_empty() {
            set_context(conn, f.pk, "")?;
        }
        let context = f.at.map(|_| String::new());
        added.push((f.pk, f.terms, context));
    }
    // Postings a re-indexed row keeps (its own terms, mostly) stay put.
    impact::replace_fields(
        conn,
        STORE_SCOPE,
        &field_docs(&removed),
        &field_docs(&added),
        0,
    )
}

/// Derives the fields of the run around `lo..=hi` again: writes the
/// changed ones, moving their old entries to `removed` and new ones to
/// `added`, and indexes the fresh rows of the run (taken from `fresh`).
fn settle_run(
    conn: &Connection,
    (lo, hi): (&Position, &Position),
    window: usize,
    fresh: &mut HashMap<i64, Fresh>,
    (removed, added): (&mut Entries, &mut Entries),
) -> Result<()> {
    let (rows, before, after) = run(conn, (lo, hi), window.saturating_mul(2))?;
    let middle = rows.len() - before - after;
    // A fresh row is indexed whatever its column holds: not stored.
    let members: Vec<RunMember<i64, SpaceJoined>> = rows
        .into_iter()
        .map(member)
        .map(|m| RunMember {
            stored: m.stored.filter(|_| !fresh.contains_key(&m.doc)),
            ..m
        })
        .collect();
    for u in changed(&members, span(before, middle, after, window), window) {
        let Some(member) = members.get(u.at) else {
            continue;
        };
        let (pk, new) = (member.doc, u.terms.0);
        match (fresh.remove(&pk), &member.stored) {
            (Some(f), _) => {
                if new != f.stored_context {
                    set_context(conn, pk, &new)?;
                }
                added.push((pk, f.terms, Some(new)));
            }
            (None, Some((old, _))) => {
                set_context(conn, pk, &new)?;
                removed.push((pk, member.own.0.clone(), Some(old.0.clone())));
                added.push((pk, member.own.0.clone(), Some(new)));
            }
            (None, None) => {}
        }
    }
    Ok(())
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
