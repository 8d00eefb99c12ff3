//! The blocks of one (term, run code) run of the index, as the shared
//! top-k search reads them ([`BlockSource`]).

use agcore_search::impact::decode_postings;
use agcore_search::impact::topk::{Block, BlockSource};
use rusqlite::Rows;

use crate::error::SqliteError;

/// Where a run's blocks come from, in key order.
pub(super) enum Blocks<'s> {
    /// Streamed from a query (`len, first_doc, postings`).
    Rows(Rows<'s>),
    /// Read beforehand (a short run of a term read whole, see
    /// [`super::preload`]).
    Held(std::vec::IntoIter<Block>),
}

impl Blocks<'_> {
    /// Blocks read beforehand.
    pub(super) fn held(blocks: Vec<Block>) -> Self {
        Self::Held(blocks.into_iter())
    }
}

impl BlockSource for Blocks<'_> {
    type Error = SqliteError;

    fn next_block(&mut self) -> Result<Option<Block>, SqliteError> {
        let rows = match self {
            Self::Rows(rows) => rows,
            Self::Held(blocks) => return Ok(blocks.next()),
        };
        Ok(match rows.next()? {
            Some(row) => Some(Block {
                len: row.get(0)?,
                first_doc: row.get(1)?,
                postings: decode_postings(
                    row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?,
                ),
            }),
            None => None,
        })
    }
}
