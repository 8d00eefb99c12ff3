//! A term's whole posting list read in one query
//! ([`agcore_search::impact::topk::WholeTerm`]: its runs' blocks and the
//! postings held in memory for exact scores).

use rusqlite::{Connection, params};

use agcore_search::impact::decode_postings;
use agcore_search::impact::topk::{Block, WholeTerm};

use crate::error::Result;

/// Every block of `term` in `scope`, in one query.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError) when the index cannot be read.
pub(super) fn whole_term(conn: &Connection, scope: i64, term: &str, df: i64) -> Result<WholeTerm> {
    let mut stmt = conn.prepare_cached(
        "SELECT tfb, len, first_doc, postings FROM bm25_blocks \
         WHERE scope = ?1 AND term = ?2 ORDER BY tfb, len, first_doc",
    )?;
    let mut rows = stmt.query(params![scope, term])?;
    let mut whole = WholeTerm::new(df);
    while let Some(row) = rows.next()? {
        let blob = row.get_ref(3)?.as_blob().map_err(rusqlite::Error::from)?;
        let block = Block {
            len: row.get(1)?,
            first_doc: row.get(2)?,
            postings: decode_postings(blob),
        };
        whole.add(row.get(0)?, block);
    }
    Ok(whole)
}
