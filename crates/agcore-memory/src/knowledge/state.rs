//! The in-memory index and backlink map of a knowledge store.

use std::collections::{BTreeMap, BTreeSet};

use super::index_entry;
use crate::{KnowledgePage, PageIndexEntry};

/// Index entries, outgoing references, and the next log sequence number.
#[derive(Debug, Default)]
pub(super) struct State {
    entries: BTreeMap<String, PageIndexEntry>,
    references: BTreeMap<String, BTreeSet<String>>,
    pub(super) next_log_seq: u64,
}

impl State {
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Adds or replaces a page's entry and references.
    pub(super) fn put(&mut self, page: &KnowledgePage) {
        self.entries.insert(page.id.clone(), index_entry(page));
        self.references
            .insert(page.id.clone(), page.references.iter().cloned().collect());
    }

    pub(super) fn remove(&mut self, id: &str) {
        self.entries.remove(id);
        self.references.remove(id);
    }

    pub(super) fn index(&self) -> Vec<PageIndexEntry> {
        self.entries.values().cloned().collect()
    }

    pub(super) fn backlinks(&self, id: &str) -> Vec<String> {
        self.references
            .iter()
            .filter(|(from, to)| from.as_str() != id && to.contains(id))
            .map(|(from, _)| from.clone())
            .collect()
    }

    pub(super) fn broken_references(&self) -> Vec<(String, String)> {
        self.references
            .iter()
            .flat_map(|(from, to)| {
                to.iter()
                    .filter(|t| !self.entries.contains_key(t.as_str()))
                    .map(move |t| (from.clone(), t.clone()))
            })
            .collect()
    }

    pub(super) fn take_log_seq(&mut self) -> u64 {
        let seq = self.next_log_seq;
        self.next_log_seq += 1;
        seq
    }
}
