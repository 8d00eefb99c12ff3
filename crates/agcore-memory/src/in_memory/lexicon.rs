//! The term dictionary: terms numbered densely, one posting list per number.
//!
//! Documents keep term numbers, so rewriting a segment (see `segments`)
//! reaches each posting list by index, without hashing a string.

use std::collections::HashMap;

use super::doc::Doc;
use super::postings::{Posting, PostingList};

/// Term → number, and the posting list of each number.
#[derive(Default)]
pub(super) struct Lexicon {
    ids: HashMap<String, u32, foldhash::fast::RandomState>,
    /// Term of each number (empty when the number is free).
    names: Vec<String>,
    lists: Vec<PostingList>,
    /// Numbers of terms no live document holds any more, for reuse.
    free: Vec<u32>,
}

impl Lexicon {
    /// The number of `term`, assigned if new.
    pub(super) fn intern(&mut self, term: String) -> u32 {
        if let Some(&id) = self.ids.get(&term) {
            return id;
        }
        let id = match self.free.pop() {
            Some(id) => {
                if let Some(name) = self.names.get_mut(id as usize) {
                    name.clone_from(&term);
                }
                id
            }
            None => {
                self.names.push(term.clone());
                self.lists.push(PostingList::default());
                u32::try_from(self.lists.len() - 1).unwrap_or(u32::MAX)
            }
        };
        self.ids.insert(term, id);
        id
    }

    /// The posting list of `term`, if a live document holds it.
    pub(super) fn get(&self, term: &str) -> Option<&PostingList> {
        let &id = self.ids.get(term)?;
        self.lists.get(id as usize)
    }

    /// The posting list of term number `id`.
    pub(super) fn list_mut(&mut self, id: u32) -> Option<&mut PostingList> {
        self.lists.get_mut(id as usize)
    }

    /// Records that a live document holding term `id` was deleted; the last
    /// one frees the number (its list emptied).
    pub(super) fn remove_one(&mut self, id: u32) {
        let Some(list) = self.lists.get_mut(id as usize) else {
            return;
        };
        if list.remove_one() {
            return;
        }
        *list = PostingList::default();
        if let Some(name) = self.names.get_mut(id as usize) {
            self.ids.remove(name.as_str());
            name.clear();
        }
        self.free.push(id);
    }

    /// Empties every posting list, keeping numbers and document frequencies
    /// (before the whole slot table is rewritten).
    pub(super) fn truncate_all(&mut self) {
        for list in &mut self.lists {
            list.truncate_from(0);
        }
    }
}

/// Appends `doc`'s postings at `slot` (larger than every slot indexed so
/// far); `new` counts it in each term's document frequency (a document moved
/// by a segment rewrite is counted already).
pub(super) fn add_postings(lexicon: &mut Lexicon, slot: u32, doc: &Doc, new: bool) {
    for &(term, tf, context_tf) in &doc.terms {
        if let Some(list) = lexicon.list_mut(term) {
            let posting = Posting {
                slot,
                tf,
                len: doc.len,
                context_tf,
                context_len: doc.context_len,
            };
            if new {
                list.push(posting);
            } else {
                list.push_moved(posting);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_stable_and_reused_after_the_last_holder_goes() {
        let mut lex = Lexicon::default();
        let a = lex.intern("apple".into());
        let b = lex.intern("记忆".into());
        assert_ne!(a, b);
        assert_eq!(lex.intern("apple".into()), a);
        lex.list_mut(a)
            .unwrap()
            .push(super::super::postings::Posting {
                slot: 0,
                tf: 1,
                len: 3,
                ..Default::default()
            });
        lex.list_mut(a)
            .unwrap()
            .push(super::super::postings::Posting {
                slot: 1,
                tf: 1,
                len: 3,
                ..Default::default()
            });
        lex.remove_one(a);
        assert_eq!(lex.get("apple").map(PostingList::df), Some(1));
        lex.remove_one(a);
        assert!(lex.get("apple").is_none());
        let c = lex.intern("cherry".into());
        assert_eq!(c, a, "the freed number is reused");
        assert!(lex.get("cherry").unwrap().entries().is_empty());
        assert_eq!(lex.get("记忆").map(PostingList::df), Some(0));
    }
}
