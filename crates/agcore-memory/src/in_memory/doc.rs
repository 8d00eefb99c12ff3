//! Stored items as the index holds them: the item with its term numbers
//! and length, slots of the slot table, and items analysed before the lock.

use std::collections::HashMap;

use crate::MemoryItem;

/// One stored item with its term frequencies in its two fields.
pub(super) struct Doc {
    pub(super) item: MemoryItem,
    /// Number of terms (with repeats) of the item's own text: BM25's
    /// document length.
    pub(super) len: u32,
    /// Distinct term numbers (see `lexicon`) in ascending order, each with
    /// its frequency in the item's own text and in its context field (one
    /// of the two may be 0).
    pub(super) terms: Vec<(u32, u32, u32)>,
    /// Number of terms of the context field (the neighbours' own texts).
    pub(super) context_len: u32,
    /// The sequence the item belongs to (see `ContextField::group_of`).
    pub(super) group: Option<String>,
    /// The item's stable handle (the index maps handles to slots).
    pub(super) handle: u32,
}

impl Doc {
    /// Term numbers and frequencies of the item's own text.
    pub(super) fn own_terms(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.terms
            .iter()
            .filter(|t| t.1 > 0)
            .map(|&(term, tf, _)| (term, tf))
    }

    /// Term numbers and frequencies of the context field.
    pub(super) fn context_terms(&self) -> Vec<(u32, u32)> {
        self.terms
            .iter()
            .filter(|t| t.2 > 0)
            .map(|&(term, _, tf)| (term, tf))
            .collect()
    }
}

/// Merges own-text and context frequencies (each sorted by term, each term
/// once) into a document's term list.
pub(super) fn merge_fields(own: &[(u32, u32)], context: &[(u32, u32)]) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::with_capacity(own.len() + context.len());
    let (mut i, mut j) = (0, 0);
    loop {
        match (own.get(i), context.get(j)) {
            (Some(&(a, tf)), Some(&(b, ctf))) if a == b => {
                out.push((a, tf, ctf));
                i += 1;
                j += 1;
            }
            (Some(&(a, tf)), Some(&(b, _))) if a < b => {
                out.push((a, tf, 0));
                i += 1;
            }
            (Some(&(a, tf)), None) => {
                out.push((a, tf, 0));
                i += 1;
            }
            (_, Some(&(b, ctf))) => {
                out.push((b, 0, ctf));
                j += 1;
            }
            (None, None) => return out,
        }
    }
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
        let (live, dead): (&[(u32, u32, u32)], &[u32]) = match self {
            Slot::Live(doc) => (&doc.terms, &[]),
            Slot::Dead(terms) => (&[], terms),
        };
        live.iter().map(|&(t, _, _)| t).chain(dead.iter().copied())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_merge_by_term() {
        assert_eq!(
            merge_fields(&[(1, 2), (4, 1)], &[(0, 1), (4, 3), (9, 1)]),
            vec![(0, 0, 1), (1, 2, 0), (4, 1, 3), (9, 0, 1)]
        );
        assert!(merge_fields(&[], &[]).is_empty());
    }
}
