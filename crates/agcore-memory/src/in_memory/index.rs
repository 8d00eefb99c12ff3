//! The state behind [`InMemoryStore`](super::InMemoryStore): items, an id
//! index, a time index and an inverted index for BM25.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use super::doc::{Doc, Slot};
use super::lexicon::Lexicon;
use super::postings::Cursor;
use super::segments::Segments;
use super::topk;
use crate::retriever::{Bm25, Bm25F, ContextField};
use crate::{MemoryFilter, MemoryItem, ScoredItem, SearchOptions};

/// Items in slots, plus the id, time and term indexes over them.
///
/// Slots are dense internal document numbers. The slot table is cut into
/// segments (see [`Segments`]): new items are appended to an unsorted tail;
/// a full tail is sealed into a segment whose items are ordered by id, and
/// segments are merged in a tiered way. Every rewrite touches a suffix of the
/// slot table only, so posting lists stay sorted by slot by truncating and
/// appending. A deleted or replaced item leaves a dead slot until its
/// segment is rewritten, and once dead slots outnumber live items the whole
/// table is rewritten as one segment.
pub(super) struct Index {
    pub(super) docs: Vec<Slot>,
    /// Whether each slot is live (dense, so scoring never reads `docs`).
    pub(super) alive: Vec<bool>,
    /// Dead slots in `docs`.
    pub(super) dead: usize,
    /// Id → handle; handles stay fixed while segment rewrites move slots.
    pub(super) by_id: BTreeMap<String, u32>,
    /// Handle → slot.
    pub(super) slot_of: Vec<u32>,
    /// Handles of deleted items, for reuse.
    pub(super) free_handles: Vec<u32>,
    pub(super) by_time: BTreeSet<(DateTime<Utc>, String)>,
    pub(super) lexicon: Lexicon,
    pub(super) total_len: u64,
    /// The context field's settings; `None`: no context field.
    pub(super) context: Option<ContextField>,
    /// Members of each sequence (see [`ContextField`]) by (`created_at`, id).
    pub(super) groups: HashMap<String, BTreeSet<(DateTime<Utc>, String)>>,
    /// Items in a sequence (those with a context field, possibly empty).
    pub(super) grouped: u64,
    /// Summed context field lengths.
    pub(super) total_context_len: u64,
    pub(super) segments: Segments,
    /// Writes since eviction was last checked.
    pub(super) writes_since_check: usize,
}

impl Index {
    /// An empty index sealing its tail every `segment_docs` items, with a
    /// context field when `context` is set.
    pub(super) fn new(segment_docs: usize, context: Option<ContextField>) -> Self {
        Self {
            docs: Vec::new(),
            alive: Vec::new(),
            dead: 0,
            by_id: BTreeMap::new(),
            slot_of: Vec::new(),
            free_handles: Vec::new(),
            by_time: BTreeSet::new(),
            lexicon: Lexicon::default(),
            total_len: 0,
            context,
            groups: HashMap::new(),
            grouped: 0,
            total_context_len: 0,
            segments: Segments::new(segment_docs),
            writes_since_check: 0,
        }
    }

    /// Number of stored items.
    pub(super) fn len(&self) -> usize {
        self.by_id.len()
    }

    pub(super) fn doc(&self, slot: u32) -> Option<&Doc> {
        self.docs.get(slot as usize).and_then(Slot::doc)
    }

    pub(super) fn slot(&self, id: &str) -> Option<u32> {
        let handle = *self.by_id.get(id)?;
        self.slot_of.get(handle as usize).copied()
    }

    /// The item with this id.
    pub(super) fn get(&self, id: &str) -> Option<&MemoryItem> {
        self.slot(id)
            .and_then(|slot| self.doc(slot))
            .map(|d| &d.item)
    }

    /// Ids of the `n` oldest items (by `created_at`, then id).
    pub(super) fn oldest(&self, n: usize) -> Vec<String> {
        self.by_time
            .iter()
            .take(n)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// Ids of items created at or before `cutoff`.
    pub(super) fn created_up_to(&self, cutoff: DateTime<Utc>) -> Vec<String> {
        self.by_time
            .iter()
            .take_while(|(t, _)| *t <= cutoff)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// Items matching `filter` (its limit ignored) in list order
    /// (`created_at`, then id), passed to `visit` until it returns `false`.
    pub(super) fn scan(&self, filter: &MemoryFilter, mut visit: impl FnMut(&MemoryItem) -> bool) {
        if let Some(members) = self.group_members(filter) {
            // A filter naming one sequence reads that sequence only (already
            // in `created_at`, id order).
            for (_, id) in members {
                if let Some(item) = self.get(id)
                    && filter.matches(item)
                    && !visit(item)
                {
                    return;
                }
            }
            return;
        }
        if let Some(prefix) = filter.prefix.as_deref() {
            let mut found: Vec<&MemoryItem> = self
                .by_id
                .range::<str, _>((
                    std::ops::Bound::Included(prefix),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(id, _)| id.starts_with(prefix))
                .filter_map(|(_, &handle)| self.slot_of.get(handle as usize))
                .filter_map(|&slot| self.doc(slot).map(|d| &d.item))
                .filter(|item| filter.matches(item))
                .collect();
            found.sort_by(|a, b| {
                a.created_at
                    .cmp(&b.created_at)
                    .then_with(|| a.id.cmp(&b.id))
            });
            for item in found {
                if !visit(item) {
                    return;
                }
            }
            return;
        }
        let start = filter.since.map_or(std::ops::Bound::Unbounded, |since| {
            std::ops::Bound::Included((since, String::new()))
        });
        for (_, id) in self.by_time.range((start, std::ops::Bound::Unbounded)) {
            if let Some(item) = self.get(id) {
                if filter.until.is_some_and(|until| item.created_at >= until) {
                    return;
                }
                if filter.matches(item) && !visit(item) {
                    return;
                }
            }
        }
    }

    /// The members of the sequence `filter` names by an equality on the
    /// context field's group key ([`ContextField::group_in`]), when it names one.
    fn group_members(&self, filter: &MemoryFilter) -> Option<&BTreeSet<(DateTime<Utc>, String)>> {
        static NONE: BTreeSet<(DateTime<Utc>, String)> = BTreeSet::new();
        let group = self.context.as_ref()?.group_in(filter)?;
        Some(self.groups.get(&group).unwrap_or(&NONE))
    }

    /// BM25F's collection statistics: the number of items and the field
    /// weights (mean own length over all items, mean context length over the
    /// items in a sequence); `None` when the store is empty.
    #[allow(clippy::cast_precision_loss)]
    pub(super) fn collection_stats(&self, scorer: &Bm25) -> Option<(f64, Bm25F)> {
        let n = self.len() as f64;
        let avg_context_len = if self.grouped > 0 {
            self.total_context_len as f64 / self.grouped as f64
        } else {
            0.0
        };
        (n > 0.0).then(|| {
            let fields = Bm25F {
                bm25: *scorer,
                avg_len: self.total_len as f64 / n,
                avg_context_len,
                weight: self.context.as_ref().map_or(0.0, |c| c.weight),
            };
            (n, fields)
        })
    }

    /// The exact BM25 top-k over the inverted index with MaxScore pruning
    /// (see [`topk`]): cost follows the postings of the query's rarer terms,
    /// not every match. `query` holds distinct terms.
    pub(super) fn search(
        &self,
        scorer: &Bm25,
        query: &[String],
        options: &SearchOptions,
    ) -> Vec<ScoredItem> {
        let Some((n, fields)) = self.collection_stats(scorer) else {
            return Vec::new();
        };
        let cursors = query
            .iter()
            .enumerate()
            .filter_map(|(term, t)| Some((term, self.lexicon.get(t)?)))
            .map(|(term, list)| {
                let idf = Bm25::idf(n, f64::from(list.df()));
                Cursor::new(list, term, idf, idf * list.max_tf_part(&fields))
            })
            .collect();
        topk::max_score(
            &topk::Table {
                docs: &self.docs,
                alive: &self.alive,
                segments: &self.segments,
            },
            cursors,
            &fields,
            options,
        )
    }
}
