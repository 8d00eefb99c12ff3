//! Exact document scores: from a term's postings held in memory, or from a
//! document's `terms` column.

use crate::error::Result;
use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::FastHash;
use super::scorer::Scorer;
use crate::impact::{TermStats, decode_postings, term_frequencies};

/// A term's postings held in memory: document → (run code, key length).
pub(super) type HeldPostings = HashMap<i64, (u32, u32), FastHash>;

/// Most postings of one term loaded into memory to score documents without
/// random access (about 1.6 MB of postings).
const MATERIALIZE_MAX: i64 = 100_000;
/// Postings loaded per random access they replace: a term is loaded once the
/// random accesses so far times this reach its document frequency (reading
/// a packed posting costs far less than one row lookup).
const POSTINGS_PER_ACCESS: i64 = 64;

/// The postings of present term `p` as `doc → (run code, key length)`, loaded once
/// worthwhile (see [`POSTINGS_PER_ACCESS`]); `None` while it is not, or when
/// the term has too many postings to hold.
pub(super) fn held<'m>(
    conn: &Connection,
    scope: i64,
    present: &[(&str, f64, TermStats)],
    materialized: &'m mut [Option<HeldPostings>],
    p: usize,
    fetches: usize,
) -> Result<Option<&'m HeldPostings>> {
    let Some(&(term, _, TermStats { df, .. })) = present.get(p) else {
        return Ok(None);
    };
    let Some(slot) = materialized.get_mut(p) else {
        return Ok(None);
    };
    let worthwhile = df
        <= POSTINGS_PER_ACCESS
            .saturating_mul(i64::try_from(fetches).unwrap_or(i64::MAX).saturating_add(1));
    if slot.is_none() && df <= MATERIALIZE_MAX && worthwhile {
        let mut map = HashMap::with_capacity_and_hasher(
            usize::try_from(df).unwrap_or(0),
            FastHash::default(),
        );
        let mut stmt = conn.prepare_cached(
            "SELECT tfb, postings FROM bm25_blocks WHERE scope = ?1 AND term = ?2",
        )?;
        let mut rows = stmt.query(params![scope, term])?;
        while let Some(row) = rows.next()? {
            let tfb: u32 = row.get(0)?;
            let blob: Vec<u8> = row.get(1)?;
            for (len, doc) in decode_postings(&blob) {
                map.insert(doc, (tfb, len));
            }
        }
        *slot = Some(map);
    }
    Ok(slot.as_ref())
}

/// The score of a document from its `terms` column and context field,
/// adding the query terms' parts in query order (as FTS5's `bm25()` and
/// the in-memory store do).
pub(super) fn exact_score(
    terms: &str,
    context: Option<&str>,
    skip: usize,
    idfs: &[(&str, f64)],
    scorer: &Scorer,
) -> f64 {
    let (len, tfs) = term_frequencies(terms, skip);
    let (clen, ctfs) = term_frequencies(context.unwrap_or(""), 0);
    let find = |tfs: &[(&str, u32)], term: &str| {
        tfs.iter()
            .find(|(t, _)| *t == term)
            .map_or(0, |(_, tf)| *tf)
    };
    let mut score = 0.0;
    for &(term, idf) in idfs {
        score += idf * scorer.part(find(&tfs, term), len, find(&ctfs, term), clen);
    }
    score
}
