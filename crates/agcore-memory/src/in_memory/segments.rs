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

use super::doc::{Doc, Slot};
use super::index::{Index, add_postings};

/// Items per sealed tail unless configured
/// ([`InMemoryStore::with_segment_size`](crate::InMemoryStore::with_segment_size)).
pub(crate) const DEFAULT_SEGMENT_DOCS: usize = 4096;
/// Segments of one level merged together.
const MERGE_FACTOR: usize = 8;

/// A sealed segment: slots from `start` to the next segment's start.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: u32,
    level: u32,
}

/// A run of slots the search walks through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    /// First slot after the run (`u32::MAX` for the tail).
    pub(super) end: u32,
    /// Whether slots in the run are in ascending id order.
    pub(super) sorted: bool,
}

/// The segment layout of the slot table.
#[derive(Debug)]
pub(super) struct Segments {
    sealed: Vec<Segment>,
    tail_start: u32,
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
    fn level_for(&self, docs: usize) -> u32 {
        let mut level = 0;
        let mut size = self.segment_docs.saturating_mul(MERGE_FACTOR);
        while docs >= size && size < usize::MAX {
            level += 1;
            size = size.saturating_mul(MERGE_FACTOR);
        }
        level
    }
}

impl Index {
    /// Seals the tail into a segment and merges full tiers.
    pub(super) fn seal_tail(&mut self) {
        let start = self.segments.tail_start;
        self.rewrite_from(start);
        self.push_segment(start, 0);
        loop {
            let n = self.segments.sealed.len();
            let Some(tier) = n
                .checked_sub(MERGE_FACTOR)
                .and_then(|from| self.segments.sealed.get(from..))
            else {
                break;
            };
            let (start, level) = match tier.first() {
                Some(first) if tier.iter().all(|s| s.level == first.level) => {
                    (first.start, first.level)
                }
                _ => break,
            };
            self.segments.sealed.truncate(n - MERGE_FACTOR);
            self.rewrite_from(start);
            self.push_segment(start, level + 1);
        }
    }

    /// Rewrites the whole table as one segment (after many deletions).
    pub(super) fn compact(&mut self) {
        let slots = std::mem::take(&mut self.docs);
        self.alive.clear();
        self.lexicon.truncate_all();
        self.segments.sealed.clear();
        self.segments.tail_start = 0;
        self.dead = 0;
        let mut live: Vec<Box<Doc>> = slots
            .into_iter()
            .filter_map(|s| match s {
                Slot::Live(doc) => Some(doc),
                Slot::Dead(_) => None,
            })
            .collect();
        live.sort_by(|a, b| a.item.id.cmp(&b.item.id));
        for doc in live {
            self.append(doc, false);
        }
        let level = self.segments.level_for(self.docs.len());
        self.push_segment(0, level);
    }

    /// Closes a segment from `start` to the end of the table (none if empty).
    fn push_segment(&mut self, start: u32, level: u32) {
        let end = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        if end > start {
            self.segments.sealed.push(Segment { start, level });
        }
        self.segments.tail_start = end;
    }

    /// Rewrites the slots from `start` on: dead ones dropped, live ones in
    /// id order (a stable sort, so sorted runs inside merge cheaply).
    fn rewrite_from(&mut self, start: u32) {
        let from = (start as usize).min(self.docs.len());
        for slot in self.docs.get(from..).unwrap_or_default() {
            for term in slot.term_ids() {
                if let Some(list) = self.lexicon.list_mut(term) {
                    list.truncate_from(start);
                }
            }
        }
        self.alive.truncate(from);
        let mut live = Vec::with_capacity(self.docs.len() - from);
        let mut dead = 0;
        for slot in self.docs.drain(from..) {
            match slot {
                Slot::Live(doc) => live.push(doc),
                Slot::Dead(_) => dead += 1,
            }
        }
        self.dead = self.dead.saturating_sub(dead);
        live.sort_by(|a, b| a.item.id.cmp(&b.item.id));
        for doc in live {
            self.append(doc, false);
        }
    }

    /// Puts `doc` in a new last slot with its postings (`new`: count it in
    /// the document frequencies).
    fn append(&mut self, doc: Box<Doc>, new: bool) {
        let slot = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        if let Some(s) = self.slot_of.get_mut(doc.handle as usize) {
            *s = slot;
        }
        add_postings(&mut self.lexicon, slot, &doc, new);
        self.docs.push(Slot::Live(doc));
        self.alive.push(true);
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
