//! Sealing and merging the index's segments ([`super::segments`]): the
//! tail sealed into a segment, full tiers merged, the whole table compacted;
//! each a rewrite of a suffix of the slot table with its postings.

use super::doc::{Doc, Slot};
use super::index::Index;
use super::lexicon::add_postings;
use super::segments::{MERGE_FACTOR, Segment};

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
