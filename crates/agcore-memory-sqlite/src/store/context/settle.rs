//! Keeping the context fields current inside a write transaction: after a
//! step of the writer (an upsert batch, a deletion, an eviction) has changed
//! rows, the rows it wrote are indexed with their fields and every row whose
//! neighbours changed gets its field (and postings) again
//! ([`agcore_search::contextual::settle`] decides which; this module reads
//! the runs and writes the fields and postings).

use agcore_search::contextual::settle::{self as shared, Entry, FieldRows};
use agcore_search::contextual::upkeep::{RunMember, SpaceJoined};
use rusqlite::Connection;

use super::run::{Position, member, run, set_context};
use crate::error::{Result, SqliteError};
use crate::impact::{self, FieldDoc};
use crate::store::search::STORE_SCOPE;

/// What one write step changed: index entries `(pk, terms, context
/// field)` it invalidated, rows it wrote (their `terms` column and what
/// their `context_terms` column holds now), places where a row appeared,
/// left or changed.
pub(crate) type Changes = shared::Changes<i64, Position>;

/// The store's rows, as the shared settle reads runs and writes fields.
struct Rows<'c>(&'c Connection);

impl FieldRows for Rows<'_> {
    type Doc = i64;
    type Place = Position;
    type Sequence = String;
    type Error = SqliteError;

    fn sequence(place: &Position) -> &String {
        &place.grp
    }

    fn run(
        &mut self,
        places: (&Position, &Position),
        margin: usize,
    ) -> Result<(Vec<RunMember<i64, SpaceJoined>>, usize, usize)> {
        let (rows, before, after) = run(self.0, places, margin)?;
        Ok((rows.into_iter().map(member).collect(), before, after))
    }

    fn set_context(&mut self, doc: i64, terms: &str) -> Result<()> {
        set_context(self.0, doc, terms)
    }
}

/// Applies `changes` to the store's index: drops the invalidated entries,
/// derives again the fields of each changed sequence's run
/// ([`agcore_search::contextual::settle::settle`]) and writes those that
/// changed, indexes the fresh rows with their fields. Run it in the step's
/// transaction, after its row writes.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn settle(conn: &Connection, window: usize, changes: Changes) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let (removed, added) = shared::settle(&mut Rows(conn), window, changes)?;
    // Postings a re-indexed row keeps (its own terms, mostly) stay put.
    impact::replace_fields(
        conn,
        STORE_SCOPE,
        &field_docs(&removed),
        &field_docs(&added),
        0,
    )
}

/// Entries as the index takes them.
fn field_docs(entries: &[Entry<i64>]) -> Vec<FieldDoc<'_>> {
    entries
        .iter()
        .map(|(pk, terms, context)| FieldDoc {
            doc: *pk,
            terms,
            context: context.as_deref(),
        })
        .collect()
}
