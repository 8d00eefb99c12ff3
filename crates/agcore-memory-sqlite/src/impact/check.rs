//! The consistency check of one scope's index against its documents.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension};

use super::{FieldDoc, Posting, decode_postings};
use crate::error::Result;
use agcore_search::impact::check::StoredIndex;

#[cfg(test)]
/// Consistency problems of `scope`'s index against `rows` (the scope's
/// documents as `(doc, terms column)`, none with a context field); see
/// [`check_fields`].
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn check(
    conn: &Connection,
    scope: i64,
    rows: &[(i64, String)],
    skip: usize,
) -> Result<Vec<String>> {
    let docs: Vec<FieldDoc<'_>> = rows.iter().map(|(d, t)| FieldDoc::plain(*d, t)).collect();
    check_fields(conn, scope, &docs, skip)
}

/// Consistency problems of `scope`'s index against `docs` (every document
/// of the scope): statistics, document frequencies and postings must match
/// them exactly, and each term's run bounds (largest tf and context tf,
/// smallest context length) must hold for them. Empty when consistent.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn check_fields(
    conn: &Connection,
    scope: i64,
    docs: &[FieldDoc<'_>],
    skip: usize,
) -> Result<Vec<String>> {
    let stats = conn
        .query_row(
            "SELECT docs, tokens, grouped, context_tokens FROM bm25_stats WHERE scope = ?1",
            [scope],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .unwrap_or((0, 0, 0, 0));
    let mut stmt = conn.prepare(
        "SELECT term, df, max_tf, max_ctf, min_clen FROM bm25_terms WHERE scope = ?1 AND df > 0",
    )?;
    let terms = stmt
        .query_map([scope], |r| {
            Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        })?
        .collect::<Result<_, _>>()?;
    let mut stmt =
        conn.prepare("SELECT term, tfb, len, postings FROM bm25_blocks WHERE scope = ?1")?;
    let mut postings: BTreeMap<(String, u32, u32), Vec<Posting>> = BTreeMap::new();
    let mut rows = stmt.query([scope])?;
    while let Some(row) = rows.next()? {
        let blob: Vec<u8> = row.get(3)?;
        postings
            .entry((row.get(0)?, row.get(1)?, row.get(2)?))
            .or_default()
            .extend(decode_postings(&blob));
    }
    let stored = StoredIndex {
        stats,
        terms,
        postings,
    };
    Ok(agcore_search::impact::check::problems(docs, skip, stored))
}
