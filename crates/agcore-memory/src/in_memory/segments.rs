//! Segments of the slot table: runs of slots ordered by item id.
//!
//! New items are appended to an unsorted tail. When the tail holds
//! `segment_docs` slots it is sealed: its live items are sorted by id and
//! written back in that order, dead slots dropped. Sealed segments merge in
//! tiers, as in log-structured merge trees (O'Neil et al. 1996, "The
//! log-structured merge-tree", Acta Informatica 33(4)) and Lucene's tiered
//! merge policy: when the last [`MERGE_FACTOR`] segments share a level they
//! are rewritten as one segment of the next level. Every rewrite covers a
//! suffix of the slot table, so posting lists are fixed up by truncating and
//! appending, and each item is rewritten O(log(n / segment_docs)) times.
//!
//! Why: the search breaks score ties by id. Inside a segment, slot order is
//! id order, so once one tied candidate loses to the k-th result on its id,
//! every later slot of the segment loses ties too and the search only needs
//! documents scoring strictly above the k-th — see `topk`.

/// Items per sealed tail unless configured
/// ([`InMemoryStore::with_segment_size`](crate::InMemoryStore::with_segment_size)).
pub(crate) const DEFAULT_SEGMENT_DOCS: usize = 4096;
/// Segments of one level merged together.
pub(super) const MERGE_FACTOR: usize = 8;

/// A sealed segment: slots from `start` to the next segment's start.
#[derive(Debug, Clone, Copy)]
pub(super) struct Segment {
    pub(super) start: u32,
    pub(super) level: u32,
}

/// A run of slots the search walks through (the default: an empty run
/// before slot 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Run {
    /// First slot after the run (`u32::MAX` for the tail).
    pub(super) end: u32,
    /// Whether slots in the run are in ascending id order.
    pub(super) sorted: bool,
}

/// The segment layout of the slot table.
#[derive(Debug)]
pub(super) struct Segments {
    pub(super) sealed: Vec<Segment>,
    pub(super) tail_start: u32,
    segment_docs: usize,
}

impl Segments {
    /// No segments; tails sealed at `segment_docs` slots (at least 1).
    pub(super) fn new(segment_docs: usize) -> Self {
        Self {
            sealed: Vec::new(),
            tail_start: 0,
            segment_docs: segment_docs.max(1),
        }
    }

    /// Slots at which tails are sealed.
    pub(super) fn segment_docs(&self) -> usize {
        self.segment_docs
    }

    /// Seals future tails at `segment_docs` slots (at least 1).
    pub(super) fn set_segment_docs(&mut self, segment_docs: usize) {
        self.segment_docs = segment_docs.max(1);
    }

    /// Whether a table of `slots` slots has a tail to seal.
    pub(super) fn tail_full(&self, slots: usize) -> bool {
        slots.saturating_sub(self.tail_start as usize) >= self.segment_docs
    }

    /// The run holding `slot`.
    pub(super) fn run_of(&self, slot: u32) -> Run {
        if slot >= self.tail_start {
            return Run {
                end: u32::MAX,
                sorted: false,
            };
        }
        let next = self.sealed.partition_point(|s| s.start <= slot);
        Run {
            end: self.sealed.get(next).map_or(self.tail_start, |s| s.start),
            sorted: true,
        }
    }

    /// The level of a segment of `docs` items: how many merges of full
    /// tails it takes to make one that large.
    pub(super) fn level_for(&self, docs: usize) -> u32 {
        let mut level = 0;
        let mut size = self.segment_docs.saturating_mul(MERGE_FACTOR);
        while docs >= size && size < usize::MAX {
            level += 1;
            size = size.saturating_mul(MERGE_FACTOR);
        }
        level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_sealed_segments_and_the_tail() {
        let mut s = Segments::new(4);
        s.sealed = vec![
            Segment { start: 0, level: 1 },
            Segment {
                start: 16,
                level: 0,
            },
        ];
        s.tail_start = 20;
        assert_eq!(
            s.run_of(3),
            Run {
                end: 16,
                sorted: true
            }
        );
        assert_eq!(
            s.run_of(16),
            Run {
                end: 20,
                sorted: true
            }
        );
        assert_eq!(
            s.run_of(19),
            Run {
                end: 20,
                sorted: true
            }
        );
        assert_eq!(
            s.run_of(20),
            Run {
                end: u32::MAX,
                sorted: false
            }
        );
        assert!(s.tail_full(24));
        assert!(!s.tail_full(23));
    }

    #[test]
    fn levels_grow_by_the_merge_factor() {
        let s = Segments::new(4);
        assert_eq!(MERGE_FACTOR, 8);
        assert_eq!(s.level_for(3), 0);
        assert_eq!(s.level_for(31), 0);
        assert_eq!(s.level_for(32), 1);
        assert_eq!(s.level_for(255), 1);
        assert_eq!(s.level_for(256), 2);
    }
}
