//! Stored items as the index holds them: the item with its term numbers
//! and length, slots of the slot table, and items analysed before the lock.

use std::collections::HashMap;

use crate::MemoryItem;

/// One stored item with its term frequencies.
pub(super) struct Doc {
    pub(super) item: MemoryItem,
    /// Number of terms (with repeats): BM25's document length.
    pub(super) len: u32,
    /// Distinct term numbers (see `lexicon`) and their frequencies.
    pub(super) terms: Vec<(u32, u32)>,
    /// The item's stable handle (the index maps handles to slots).
    pub(super) handle: u32,
}

/// A slot of the slot table.
pub(super) enum Slot {
    /// A stored item (boxed: rewrites move slots, not items).
    Live(Box<Doc>),
    /// A deleted or replaced item: its term numbers, so the segment rewrite
    /// that drops it finds its postings.
    Dead(Vec<u32>),
}

impl Slot {
    /// The document, if the slot is live.
    pub(super) fn doc(&self) -> Option<&Doc> {
        match self {
            Slot::Live(doc) => Some(doc),
            Slot::Dead(_) => None,
        }
    }

    /// Numbers of the terms whose lists may hold a posting of this slot.
    pub(super) fn term_ids(&self) -> impl Iterator<Item = u32> + '_ {
        let (live, dead): (&[(u32, u32)], &[u32]) = match self {
            Slot::Live(doc) => (&doc.terms, &[]),
            Slot::Dead(terms) => (&[], terms),
        };
        live.iter().map(|&(t, _)| t).chain(dead.iter().copied())
    }
}

/// Terms of one item, computed before the lock is taken.
pub(super) struct Analyzed {
    pub(super) item: MemoryItem,
    pub(super) len: u32,
    pub(super) terms: Vec<(String, u32)>,
}

impl Analyzed {
    /// Tokenises `item.content` with [`crate::retriever::index_terms`].
    pub(super) fn new(item: MemoryItem) -> Self {
        let keywords = crate::retriever::index_terms(&item.content);
        let len = u32::try_from(keywords.len()).unwrap_or(u32::MAX);
        let mut counts: HashMap<String, u32, foldhash::fast::RandomState> = HashMap::default();
        for k in keywords {
            let c = counts.entry(k).or_insert(0);
            *c = c.saturating_add(1);
        }
        Self {
            item,
            len,
            terms: counts.into_iter().collect(),
        }
    }
}
