//! Sorted access to one (term, run code) run of an impact-ordered index.

use super::super::layout::Posting;
use super::super::scorer::{RunBounds, Scorer};

/// One stored block of a run: its key length, first document and postings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The key length of the row (every posting's, in the current layout).
    pub len: u32,
    /// The first document of the row.
    pub first_doc: i64,
    /// Its postings, ascending.
    pub postings: Vec<Posting>,
}

/// Where a run's blocks come from, in `(len, first_doc)` order: a query on
/// the index's block table, or blocks already read.
pub trait BlockSource {
    /// The storage's error.
    type Error;
    /// The next block, `None` at the end of the run.
    ///
    /// # Errors
    /// When the storage cannot be read.
    fn next_block(&mut self) -> Result<Option<Block>, Self::Error>;
}

/// Blocks held in memory (a term read whole).
#[derive(Debug)]
pub struct HeldBlocks<E>(
    std::vec::IntoIter<Block>,
    std::marker::PhantomData<fn() -> E>,
);

impl<E> HeldBlocks<E> {
    /// The blocks of one run, in key order.
    #[must_use]
    pub fn new(blocks: Vec<Block>) -> Self {
        Self(blocks.into_iter(), std::marker::PhantomData)
    }
}

impl<E> BlockSource for HeldBlocks<E> {
    type Error = E;
    fn next_block(&mut self) -> Result<Option<Block>, E> {
        Ok(self.0.next())
    }
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
pub struct Run<S> {
    /// Index of the term among the query's terms with postings.
    pub term: usize,
    /// The term's idf.
    pub idf: f64,
    /// The run code.
    pub code: u32,
    bounds: RunBounds,
    source: S,
    ahead: Option<Block>,
    buffer: Vec<Posting>,
    pos: usize,
    /// The next posting, `None` once the run is read.
    pub next: Option<Posting>,
    /// `idf ×` the bound of the part of `next` and every posting after it
    /// (0 at the end).
    pub bound: f64,
}

impl<S: BlockSource> Run<S> {
    /// Opens run `code` of present term `term` (weight `idf`) with its
    /// `bounds`, reading blocks from `source`.
    ///
    /// # Errors
    /// What `source` returns.
    pub fn new(
        term: usize,
        idf: f64,
        code: u32,
        bounds: RunBounds,
        mut source: S,
        scorer: &Scorer,
    ) -> Result<Self, S::Error> {
        let ahead = source.next_block()?;
        let mut run = Self {
            term,
            idf,
            code,
            bounds,
            source,
            ahead,
            buffer: Vec::new(),
            pos: 0,
            next: None,
            bound: 0.0,
        };
        run.advance(scorer)?;
        Ok(run)
    }

    /// Moves to the next posting and its bound.
    ///
    /// # Errors
    /// What the block source returns.
    pub fn advance(&mut self, scorer: &Scorer) -> Result<(), S::Error> {
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
            self.ahead = self.source.next_block()?;
        };
        self.bound = self
            .next
            .map_or(0.0, |(len, _)| self.idf * self.bounds.part(scorer, len));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{Ranking, ScopeStats};
    use super::*;

    /// Every posting of blocks `(len, postings)` of one run, read back
    /// through [`Run`].
    fn read_back(blocks: &[(u32, Vec<Posting>)]) -> Vec<Posting> {
        let blocks = blocks
            .iter()
            .map(|(len, postings)| Block {
                len: *len,
                first_doc: postings.first().map_or(0, |p| p.1),
                postings: postings.clone(),
            })
            .collect();
        let stats = ScopeStats {
            docs: 10.0,
            avg_len: 5.0,
            avg_context_len: 0.0,
        };
        let scorer = Scorer::new(Ranking::Fts5, &stats);
        let bounds = RunBounds::new(1, 1, 0, 0);
        let source = HeldBlocks::<()>::new(blocks);
        let mut run = Run::new(0, 1.0, 1, bounds, source, &scorer).unwrap();
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
