//! Keeping the impact-ordered index in step with the documents: postings
//! grouped into blocks per (term, tf bucket, document length), added and removed
//! in the writer's transaction.

use crate::error::{Result, SqliteError};
use rusqlite::{CachedStatement, Connection, OptionalExtension, ToSql, params};

use super::{FieldDoc, encode_postings};
use crate::multirow::{self, MultiRow};

pub(crate) mod replace;

use agcore_search::impact::blocks::{
    BlockRef, BlockTable, StoredBlock, add_blocks, doc_range, strip_blocks, with_rebuilt,
};
use agcore_search::impact::{GroupKey, Grouped, group_docs, group_docs_parallel};

/// The blocks of a group whose documents range over some of `?5..=?6`.
const BLOCKS_MEETING: &str = "SELECT first_doc, postings FROM bm25_blocks WHERE scope = ?1 \
     AND term = ?2 AND tfb = ?3 AND len = ?4 AND first_doc <= ?6 AND last_doc >= ?5";

/// The delete of one block.
const DELETE_BLOCK: &str = "DELETE FROM bm25_blocks WHERE scope = ?1 AND term = ?2 \
     AND tfb = ?3 AND len = ?4 AND first_doc = ?5";

/// The block table of `scope`, as [`agcore_search::impact::blocks`] reads
/// and deletes it.
struct ScopeBlocks<'c> {
    conn: &'c Connection,
    scope: i64,
    /// [`BLOCKS_MEETING`] and [`DELETE_BLOCK`] prepared once for a removal
    /// (a read and deletes per group); `None`: prepared at each call.
    held: Option<(CachedStatement<'c>, CachedStatement<'c>)>,
}

impl BlockTable for ScopeBlocks<'_> {
    type Error = SqliteError;

    fn last_block(&mut self, (term, tfb, len): GroupKey<'_>) -> Result<Option<StoredBlock>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT first_doc, postings FROM bm25_blocks WHERE scope = ?1 AND term = ?2 \
                 AND tfb = ?3 AND len = ?4 ORDER BY first_doc DESC LIMIT 1",
            )?
            .query_row(params![self.scope, term, tfb, len], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?)
    }

    fn blocks_meeting(
        &mut self,
        (term, tfb, len): GroupKey<'_>,
        (min, max): (i64, i64),
    ) -> Result<Vec<StoredBlock>> {
        let mut prepared;
        let stmt = match &mut self.held {
            Some((meeting, _)) => meeting,
            None => {
                prepared = self.conn.prepare_cached(BLOCKS_MEETING)?;
                &mut prepared
            }
        };
        Ok(stmt
            .query_map(params![self.scope, term, tfb, len, min, max], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<_, _>>()?)
    }

    fn delete_block(&mut self, (term, tfb, len): GroupKey<'_>, first: i64) -> Result<()> {
        let params = params![self.scope, term, tfb, len, first];
        match &mut self.held {
            Some((_, delete)) => delete.execute(params)?,
            None => self.conn.prepare_cached(DELETE_BLOCK)?.execute(params)?,
        };
        Ok(())
    }
}

/// The block insert (7 parameters a row).
static INSERT_BLOCKS: MultiRow = MultiRow::new(
    "INSERT INTO bm25_blocks (scope, term, tfb, len, first_doc, last_doc, postings)",
    7,
    1,
    "",
);

/// The document-frequency upsert (6 parameters a row). The run bounds only
/// widen: `max_tf`, `max_ctf` grow, `min_clen` (NULL: none yet) shrinks.
static UPSERT_TERMS: MultiRow = MultiRow::new(
    "INSERT INTO bm25_terms (scope, term, df, max_tf, max_ctf, min_clen)",
    6,
    1,
    "ON CONFLICT (scope, term) DO UPDATE SET df = df + excluded.df, \
     max_tf = max(max_tf, excluded.max_tf), max_ctf = max(max_ctf, excluded.max_ctf), \
     min_clen = coalesce(min(min_clen, excluded.min_clen), min_clen, excluded.min_clen)",
);

/// Inserts blocks `(term, tfb, len, postings)` of `scope`, many per statement.
pub(super) fn insert_blocks(conn: &Connection, scope: i64, blocks: &[BlockRef<'_>]) -> Result<()> {
    for range in multirow::chunks(blocks.len()) {
        let chunk = blocks.get(range.clone()).unwrap_or_default();
        let mut stmt = INSERT_BLOCKS.prepare(conn, chunk.len())?;
        for (slot, ((term, tfb, len), postings)) in chunk.iter().enumerate() {
            let (first, last) = doc_range(postings);
            let blob = encode_postings(postings);
            let row: [&dyn ToSql; 7] = [&scope, term, tfb, len, &first, &last, &blob];
            multirow::bind_row(&mut stmt, slot, &row)?;
        }
        stmt.raw_execute()?;
    }
    Ok(())
}

/// Adds `docs` (`(doc, terms column)`, each not indexed yet, none with a
/// context field) to `scope`; see [`add_fields`].
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn add_docs(
    conn: &Connection,
    scope: i64,
    docs: &[(i64, &str)],
    skip: usize,
) -> Result<()> {
    let docs: Vec<FieldDoc<'_>> = docs.iter().map(|&(d, t)| FieldDoc::plain(d, t)).collect();
    add_fields(conn, scope, &docs, skip)
}

/// Adds `docs` (each not indexed yet) to `scope`: their postings, document
/// frequencies, run bounds and the collection statistics. Run it in the
/// transaction that wrote the documents.
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn add_fields(
    conn: &Connection,
    scope: i64,
    docs: &[FieldDoc<'_>],
    skip: usize,
) -> Result<()> {
    if docs.is_empty() {
        return Ok(());
    }
    write_grouped(conn, scope, &group_docs_parallel(docs, skip))
}

/// Writes the grouped postings of documents not indexed yet ([`add_docs`]).
fn write_grouped(conn: &Connection, scope: i64, grouped: &Grouped<'_>) -> Result<()> {
    write_blocks(conn, scope, grouped)?;
    add_stats(conn, scope, grouped)
}

/// Adds the postings of `grouped` to the blocks
/// ([`agcore_search::impact::blocks::add_blocks`]).
fn write_blocks(conn: &Connection, scope: i64, grouped: &Grouped<'_>) -> Result<()> {
    let mut table = ScopeBlocks {
        conn,
        scope,
        held: None,
    };
    let (blocks, rebuilt) = add_blocks(&mut table, grouped)?;
    insert_blocks(conn, scope, &with_rebuilt(blocks, &rebuilt))
}

/// Adds the document frequencies, run bounds and collection statistics of
/// `grouped`'s documents.
fn add_stats(conn: &Connection, scope: i64, grouped: &Grouped<'_>) -> Result<()> {
    for range in multirow::chunks(grouped.terms.len()) {
        let chunk = grouped.terms.get(range.clone()).unwrap_or_default();
        let mut stmt = UPSERT_TERMS.prepare(conn, chunk.len())?;
        for (slot, t) in chunk.iter().enumerate() {
            let row: [&dyn ToSql; 6] = [&scope, &t.term, &t.df, &t.max_tf, &t.max_ctf, &t.min_clen];
            multirow::bind_row(&mut stmt, slot, &row)?;
        }
        stmt.raw_execute()?;
    }
    let n = i64::try_from(grouped.docs).unwrap_or(i64::MAX);
    conn.prepare_cached(
        "INSERT INTO bm25_stats (scope, docs, tokens, grouped, context_tokens) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (scope) DO UPDATE SET docs = docs + excluded.docs, \
         tokens = tokens + excluded.tokens, grouped = grouped + excluded.grouped, \
         context_tokens = context_tokens + excluded.context_tokens",
    )?
    .execute(params![
        scope,
        n,
        grouped.tokens,
        grouped.grouped,
        grouped.context_tokens
    ])?;
    Ok(())
}

/// Removes `docs` (`(doc, terms column as indexed)`, none with a context
/// field) from `scope`; see [`remove_fields`].
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn remove_docs(
    conn: &Connection,
    scope: i64,
    docs: &[(i64, &str)],
    skip: usize,
) -> Result<()> {
    let docs: Vec<FieldDoc<'_>> = docs.iter().map(|&(d, t)| FieldDoc::plain(d, t)).collect();
    remove_fields(conn, scope, &docs, skip)
}

/// Removes `docs` (as indexed: the same terms and context field) from
/// `scope`: their postings (rewriting the blocks that held them), document
/// frequencies and the collection statistics. A term whose frequency falls
/// to 0 loses its row; the others keep their run bounds (they remain valid
/// bounds). Run it in the transaction that removes or rewrites the
/// documents.
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn remove_fields(
    conn: &Connection,
    scope: i64,
    docs: &[FieldDoc<'_>],
    skip: usize,
) -> Result<()> {
    if docs.is_empty() {
        return Ok(());
    }
    let grouped = group_docs(docs, skip);
    remove_blocks(conn, scope, &grouped)?;
    remove_stats(conn, scope, &grouped, docs.len())
}

/// Takes the postings of `grouped` out of their blocks, rewriting each
/// block that held one ([`agcore_search::impact::blocks::strip_blocks`]).
fn remove_blocks(conn: &Connection, scope: i64, grouped: &Grouped<'_>) -> Result<()> {
    let held = (
        conn.prepare_cached(BLOCKS_MEETING)?,
        conn.prepare_cached(DELETE_BLOCK)?,
    );
    let mut table = ScopeBlocks {
        conn,
        scope,
        held: Some(held),
    };
    let rewritten = strip_blocks(&mut table, grouped)?;
    insert_blocks(conn, scope, &with_rebuilt(Vec::new(), &rewritten))
}

/// Subtracts the document frequencies and collection statistics of
/// `grouped`'s `n` documents.
fn remove_stats(conn: &Connection, scope: i64, grouped: &Grouped<'_>, n: usize) -> Result<()> {
    let mut sub =
        conn.prepare_cached("UPDATE bm25_terms SET df = df - ?3 WHERE scope = ?1 AND term = ?2")?;
    // A term no document holds any more leaves no row behind (its bounds
    // start afresh if it comes back).
    let mut unused =
        conn.prepare_cached("DELETE FROM bm25_terms WHERE scope = ?1 AND term = ?2 AND df <= 0")?;
    for t in &grouped.terms {
        sub.execute(params![scope, t.term, t.df])?;
        unused.execute(params![scope, t.term])?;
    }
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    conn.prepare_cached(
        "UPDATE bm25_stats SET docs = docs - ?2, tokens = tokens - ?3, \
         grouped = grouped - ?4, context_tokens = context_tokens - ?5 WHERE scope = ?1",
    )?
    .execute(params![
        scope,
        n,
        grouped.tokens,
        grouped.grouped,
        grouped.context_tokens
    ])?;
    Ok(())
}
