//! A term's whole posting list read in one query: its runs' blocks and the
//! postings held in memory for exact scores.
//!
//! A short list costs about one run's seek to read whole, while reading it
//! run by run takes one query per (tf bucket, context tf bucket) pair — up to
//! [`TF_BUCKETS`](agcore_search::impact::TF_BUCKETS) · (`TF_BUCKETS` + 2) of them,
//! mostly tiny or empty on small collections. The runs are then walked in
//! memory in the same order as streamed, so results do not change.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Connection, params};

use agcore_search::impact::decode_postings;
use agcore_search::impact::topk::{Block, FastHash, HeldPostings};

use crate::error::Result;

/// Largest document frequency of a term read whole (four full blocks): a
/// longer list is streamed run by run, so an early stop reads little of it.
pub(super) const PRELOAD_MAX: i64 = 2_048;

/// A term's blocks by run code (each run in key order) and its postings as
/// `doc → (run code, key length)`.
pub(super) struct WholeTerm {
    pub(super) runs: BTreeMap<u32, Vec<Block>>,
    pub(super) held: HeldPostings,
}

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
    let mut runs: BTreeMap<u32, Vec<Block>> = BTreeMap::new();
    let mut held =
        HashMap::with_capacity_and_hasher(usize::try_from(df).unwrap_or(0), FastHash::default());
    while let Some(row) = rows.next()? {
        let code: u32 = row.get(0)?;
        let postings = decode_postings(row.get_ref(3)?.as_blob().map_err(rusqlite::Error::from)?);
        for &(len, doc) in &postings {
            held.insert(doc, (code, len));
        }
        runs.entry(code).or_default().push(Block {
            len: row.get(1)?,
            first_doc: row.get(2)?,
            postings,
        });
    }
    Ok(WholeTerm { runs, held })
}
