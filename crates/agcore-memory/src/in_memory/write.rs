//! Writes to the in-memory index: inserts (upserts) and removals, with the
//! context fields of the neighbours kept current (see `context`).

use super::doc::{Analyzed, Doc, Slot, merge_fields};
use super::index::Index;
use super::lexicon::add_postings;

/// Dead slots tolerated before a compaction (and at least as many as live
/// documents, so compaction costs amortised O(1) per deletion).
const COMPACT_MIN_DEAD: usize = 1024;

impl Index {
    /// Inserts or replaces (upsert); the context fields of the item and of
    /// its neighbours follow.
    pub(super) fn insert(&mut self, analyzed: Analyzed) {
        self.remove(&analyzed.item.id);
        let slot = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        let handle = match self.free_handles.pop() {
            Some(handle) => {
                if let Some(s) = self.slot_of.get_mut(handle as usize) {
                    *s = slot;
                }
                handle
            }
            None => {
                self.slot_of.push(slot);
                u32::try_from(self.slot_of.len() - 1).unwrap_or(u32::MAX)
            }
        };
        self.total_len += u64::from(analyzed.len);
        let key = (analyzed.item.created_at, analyzed.item.id.clone());
        self.by_id.insert(analyzed.item.id.clone(), handle);
        self.by_time.insert(key.clone());
        let mut own: Vec<(u32, u32)> = analyzed
            .terms
            .into_iter()
            .map(|(term, tf)| (self.lexicon.intern(term), tf))
            .collect();
        own.sort_unstable_by_key(|t| t.0);
        let group = self
            .context
            .as_ref()
            .and_then(|c| c.group_of(&analyzed.item));
        let (context, context_len) = match &group {
            Some(g) => {
                self.groups
                    .entry(g.clone())
                    .or_default()
                    .insert(key.clone());
                self.grouped += 1;
                self.context_of(g, &key)
            }
            None => (Vec::new(), 0),
        };
        self.total_context_len += u64::from(context_len);
        let doc = Box::new(Doc {
            item: analyzed.item,
            len: analyzed.len,
            terms: merge_fields(&own, &context),
            context_len,
            group: group.clone(),
            handle,
        });
        self.push_new(doc);
        if let Some(g) = group {
            self.refresh_around(&g, &key);
        }
    }

    /// Puts a new document (or a new version of one) in the last slot,
    /// counting it in the document frequencies.
    pub(super) fn push_new(&mut self, doc: Box<Doc>) {
        let slot = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        if let Some(s) = self.slot_of.get_mut(doc.handle as usize) {
            *s = slot;
        }
        add_postings(&mut self.lexicon, slot, &doc, true);
        self.docs.push(Slot::Live(doc));
        self.alive.push(true);
        if self.segments.tail_full(self.docs.len()) {
            self.seal_tail();
        }
    }

    /// Removes the item with this id; returns whether it existed.
    pub(super) fn remove(&mut self, id: &str) -> bool {
        let Some(handle) = self.by_id.remove(id) else {
            return false;
        };
        self.free_handles.push(handle);
        let Some(slot) = self.slot_of.get(handle as usize).map(|&s| s as usize) else {
            return false;
        };
        let Some(entry) = self.docs.get_mut(slot) else {
            return false;
        };
        let Slot::Live(doc) = std::mem::replace(entry, Slot::Dead(Vec::new())) else {
            return false;
        };
        if let Some(a) = self.alive.get_mut(slot) {
            *a = false;
        }
        let mut ids = Vec::with_capacity(doc.terms.len());
        for &(term, _, _) in &doc.terms {
            self.lexicon.remove_one(term);
            ids.push(term);
        }
        *entry = Slot::Dead(ids);
        self.total_len = self.total_len.saturating_sub(u64::from(doc.len));
        let key = (doc.item.created_at, doc.item.id);
        self.by_time.remove(&key);
        self.dead += 1;
        if let Some(g) = doc.group {
            self.grouped = self.grouped.saturating_sub(1);
            self.total_context_len = self
                .total_context_len
                .saturating_sub(u64::from(doc.context_len));
            if let Some(members) = self.groups.get_mut(&g) {
                members.remove(&key);
                if members.is_empty() {
                    self.groups.remove(&g);
                }
            }
            self.refresh_around(&g, &key);
        }
        self.compact_if_sparse();
        true
    }

    /// Rewrites the table once dead slots outnumber live items.
    pub(super) fn compact_if_sparse(&mut self) {
        if self.dead >= COMPACT_MIN_DEAD && self.dead > self.by_id.len() {
            self.compact();
        }
    }
}
