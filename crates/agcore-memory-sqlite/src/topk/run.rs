//! Sorted access to one (term, run code) run of the impact-ordered index.

use crate::error::Result;

use rusqlite::Rows;

use super::scorer::{RunBounds, Scorer};
use crate::impact::{Posting, decode_postings};

/// A block as read: its key's length and first document, and its postings.
pub(super) struct Block {
    pub(super) len: u32,
    pub(super) first_doc: i64,
    pub(super) postings: Vec<Posting>,
}

/// Where a run's blocks come from, in key order.
pub(super) enum Blocks<'s> {
    /// Streamed from a query (`len, first_doc, postings`).
    Rows(Rows<'s>),
    /// Read beforehand (a short run of a term read whole, see
    /// [`super::preload`]).
    Held(std::vec::IntoIter<Block>),
}

/// Sorted access to one (term, run code) run, streamed block by block.
///
/// The run's blocks come in key order (length, first document), every
/// posting of a block has the block's length and a document at or after its
/// first, so the postings read so far can be yielded up to the next unread
/// block's (length, first document): everything unread sorts after that.
/// Blocks of one length whose document ranges overlap (left by rewrites) are
/// merged; disjoint ones — the usual case — are read one at a time, so a
/// top-k that stops early reads one block of a long list.
pub(super) struct Run<'s> {
    /// Index of the term among the query's terms with postings.
    pub(super) term: usize,
    pub(super) idf: f64,
    /// The run code (`tfb` column, [`crate::impact::run_code`]).
    pub(super) code: u32,
    /// What bounds the run's postings.
    bounds: RunBounds,
    rows: Blocks<'s>,
    /// The next unread block (read ahead); `None` once the rows are done.
    ahead: Option<Block>,
    /// Postings read and not yet yielded, ascending from `pos`.
    buffer: Vec<Posting>,
    pos: usize,
    /// Next unread posting `(len, doc)`.
    pub(super) next: Option<Posting>,
    /// Bound of the term's part in any document after the cursor (0 when done).
    pub(super) bound: f64,
}

impl<'s> Run<'s> {
    /// A run over the blocks of `rows` (in key order), positioned on its
    /// first posting.
    ///
    /// # Errors
    /// [`MemoryError::Storage`](agcore_memory::MemoryError) when a row cannot be read.
    pub(super) fn new(
        term: usize,
        idf: f64,
        code: u32,
        bounds: RunBounds,
        rows: Blocks<'s>,
        scorer: &Scorer,
    ) -> Result<Self> {
        let mut run = Self {
            term,
            idf,
            code,
            bounds,
            rows,
            ahead: None,
            buffer: Vec::new(),
            pos: 0,
            next: None,
            bound: 0.0,
        };
        run.ahead = run.read_block()?;
        run.advance(scorer)?;
        Ok(run)
    }

    fn read_block(&mut self) -> Result<Option<Block>> {
        let rows = match &mut self.rows {
            Blocks::Rows(rows) => rows,
            Blocks::Held(blocks) => return Ok(blocks.next()),
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

    /// Moves to the next posting (in (length, document) order) and its bound.
    pub(super) fn advance(&mut self, scorer: &Scorer) -> Result<()> {
        self.next = loop {
            if let Some(&posting) = self.buffer.get(self.pos)
                && self
                    .ahead
                    .as_ref()
                    .is_none_or(|b| (b.len, b.first_doc) > posting)
            {
                self.pos += 1;
                break Some(posting);
            }
            let Some(block) = self.ahead.take() else {
                break None;
            };
            self.buffer.drain(..self.pos);
            self.pos = 0;
            let sorted = self
                .buffer
                .last()
                .is_none_or(|&last| block.postings.first().is_none_or(|&first| last < first));
            self.buffer.extend(block.postings);
            if !sorted {
                self.buffer.sort_unstable();
                self.buffer.dedup();
            }
            self.ahead = self.read_block()?;
        };
        self.bound = self
            .next
            .map_or(0.0, |(len, _)| self.idf * self.bounds.part(scorer, len));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, params};

    use super::*;
    use crate::impact::encode_postings;

    /// Every posting of blocks `(len, postings)` stored under one run key,
    /// read back through [`Run`].
    fn read_back(blocks: &[(u32, Vec<Posting>)]) -> Vec<Posting> {
        let conn = Connection::open_in_memory().unwrap();
        crate::impact::create_tables(&conn).unwrap();
        for (len, postings) in blocks {
            conn.execute(
                "INSERT INTO bm25_blocks VALUES (1, 't', 1, ?1, ?2, ?3, ?4)",
                params![
                    len,
                    postings.first().unwrap().1,
                    postings.last().unwrap().1,
                    encode_postings(postings)
                ],
            )
            .unwrap();
        }
        let mut stmt = conn
            .prepare(
                "SELECT len, first_doc, postings FROM bm25_blocks \
                 WHERE scope = 1 AND term = 't' AND tfb = 1 ORDER BY len, first_doc",
            )
            .unwrap();
        let stats = crate::impact::ScopeStats {
            docs: 10.0,
            avg_len: 5.0,
            avg_context_len: 0.0,
        };
        let scorer = Scorer::new(super::super::Ranking::Fts5, &stats);
        let bounds = RunBounds::new(1, 1, 0, 0);
        let rows = Blocks::Rows(stmt.query([]).unwrap());
        let mut run = Run::new(0, 1.0, 1, bounds, rows, &scorer).unwrap();
        let mut out = Vec::new();
        let mut last_bound = f64::INFINITY;
        while let Some(posting) = run.next {
            assert!(run.bound <= last_bound, "bounds never rise along a run");
            last_bound = run.bound;
            out.push(posting);
            run.advance(&scorer).unwrap();
        }
        assert_eq!(run.bound, 0.0);
        out
    }

    #[test]
    fn yields_length_then_document_order_across_overlapping_blocks() {
        let block = |len: u32, docs: &[i64]| -> (u32, Vec<Posting>) {
            (len, docs.iter().map(|&d| (len, d)).collect())
        };
        let blocks = vec![
            block(3, &[1, 5, 9]),
            block(3, &[2, 6, 40]), // overlaps the first
            block(3, &[41, 42]),
            block(4, &[0, 7]),
            block(9, &[3]),
            block(9, &[4, 8]),
        ];
        let mut want: Vec<Posting> = blocks.iter().flat_map(|(_, p)| p.clone()).collect();
        want.sort_unstable();
        assert_eq!(read_back(&blocks), want);
    }

    #[test]
    fn a_disjoint_run_is_read_without_reordering() {
        let blocks: Vec<(u32, Vec<Posting>)> = (0..6)
            .map(|b| {
                (
                    2 + b / 3,
                    (0..50)
                        .map(|d| (2 + b / 3, i64::from(b * 100 + d)))
                        .collect(),
                )
            })
            .collect();
        let want: Vec<Posting> = blocks.iter().flat_map(|(_, p)| p.clone()).collect();
        assert_eq!(read_back(&blocks), want);
    }
}
