//! The context field of the in-memory index (see
//! [`ContextField`](crate::retriever::ContextField)): derived from the
//! neighbours in each sequence and kept current as items come and go.

use std::collections::HashMap;
use std::ops::Bound;

use chrono::{DateTime, Utc};

use super::doc::{Slot, merge_fields};
use super::index::Index;

/// An item's position in its sequence: (`created_at`, id).
type Key = (DateTime<Utc>, String);

impl Index {
    /// Ids of the members of `group` within the window on each side of
    /// `key` (`key` itself excluded, whether or not it is a member).
    fn neighbours(&self, group: &str, key: &Key) -> Vec<String> {
        let (Some(members), Some(window)) = (
            self.groups.get(group),
            self.context.as_ref().map(|c| c.window),
        ) else {
            return Vec::new();
        };
        let before = members
            .range::<Key, _>((Bound::Unbounded, Bound::Excluded(key)))
            .rev()
            .take(window);
        let after = members
            .range::<Key, _>((Bound::Excluded(key), Bound::Unbounded))
            .take(window);
        before.chain(after).map(|(_, id)| id.clone()).collect()
    }

    /// The context field of the item at `key` in `group`: its neighbours'
    /// own term frequencies summed (sorted by term) and their summed lengths.
    pub(super) fn context_of(&self, group: &str, key: &Key) -> (Vec<(u32, u32)>, u32) {
        let mut counts: HashMap<u32, u32> = HashMap::new();
        let mut len: u32 = 0;
        for id in self.neighbours(group, key) {
            let Some(doc) = self.slot(&id).and_then(|slot| self.doc(slot)) else {
                continue;
            };
            len = len.saturating_add(doc.len);
            for (term, tf) in doc.own_terms() {
                let c = counts.entry(term).or_insert(0);
                *c = c.saturating_add(tf);
            }
        }
        let mut terms: Vec<(u32, u32)> = counts.into_iter().collect();
        terms.sort_unstable_by_key(|t| t.0);
        (terms, len)
    }

    /// Brings the context fields of `key`'s neighbours in `group` up to date
    /// (after the item at `key` was added or removed).
    pub(super) fn refresh_around(&mut self, group: &str, key: &Key) {
        for id in self.neighbours(group, key) {
            self.refresh(&id);
        }
    }

    /// Recomputes the context field of item `id`; when it changed, the item
    /// moves to a new slot with new postings (its old slot dies, as on an
    /// update).
    fn refresh(&mut self, id: &str) {
        let Some(slot) = self.slot(id) else {
            return;
        };
        let Some((group, key, context_len, current)) = self.doc(slot).and_then(|doc| {
            let group = doc.group.clone()?;
            let key = (doc.item.created_at, doc.item.id.clone());
            Some((group, key, doc.context_len, doc.context_terms()))
        }) else {
            return;
        };
        let (context, len) = self.context_of(&group, &key);
        if len == context_len && context == current {
            return;
        }
        let Some(entry) = self.docs.get_mut(slot as usize) else {
            return;
        };
        let Slot::Live(mut doc) = std::mem::replace(entry, Slot::Dead(Vec::new())) else {
            return;
        };
        let old: Vec<u32> = doc.terms.iter().map(|t| t.0).collect();
        *entry = Slot::Dead(old.clone());
        if let Some(a) = self.alive.get_mut(slot as usize) {
            *a = false;
        }
        self.dead += 1;
        self.total_context_len = self
            .total_context_len
            .saturating_sub(u64::from(doc.context_len))
            .saturating_add(u64::from(len));
        let own: Vec<(u32, u32)> = doc.own_terms().collect();
        doc.terms = merge_fields(&own, &context);
        doc.context_len = len;
        // New postings first, so no term number shared by both versions is
        // freed in between.
        self.push_new(doc);
        for &term in &old {
            self.lexicon.remove_one(term);
        }
        self.compact_if_sparse();
    }
}
