//! The state behind [`InMemoryStore`](super::InMemoryStore): items, an id
//! index, a time index and an inverted index for BM25.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use super::postings::{Cursor, PostingList};
use super::topk;
use crate::retriever::{Bm25, compare_hits};
use crate::{MemoryFilter, MemoryItem, ScoredItem, SearchOptions};

/// Tombstoned slots tolerated before a compaction (and at least as many as
/// live documents, so compaction costs amortised O(1) per deletion).
const COMPACT_MIN_DEAD: usize = 1024;

/// One stored item with its term frequencies.
pub(super) struct Doc {
    pub(super) item: MemoryItem,
    /// Number of terms (with repeats): BM25's document length.
    pub(super) len: u32,
    /// Distinct terms and their frequencies.
    terms: Vec<(String, u32)>,
}

/// Terms of one item, computed before the lock is taken.
pub(super) struct Analyzed {
    pub(super) item: MemoryItem,
    len: u32,
    terms: Vec<(String, u32)>,
}

impl Analyzed {
    /// Tokenises `item.content` with [`crate::retriever::extract_keywords`].
    pub(super) fn new(item: MemoryItem) -> Self {
        let keywords = crate::retriever::extract_keywords(&item.content);
        let len = u32::try_from(keywords.len()).unwrap_or(u32::MAX);
        let mut counts: HashMap<String, u32> = HashMap::new();
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

/// Items in slots, plus the id, time and term indexes over them.
///
/// Slots are dense internal document numbers handed out in increasing order;
/// a deleted or replaced item leaves an empty slot (a tombstone) that the
/// posting lists skip, and once tombstones outnumber live items the table is
/// compacted (live items renumbered in order, postings rebuilt), so posting
/// lists stay sorted by slot without ever inserting in the middle.
#[derive(Default)]
pub(super) struct Index {
    docs: Vec<Option<Doc>>,
    /// Empty slots in `docs`.
    dead: usize,
    by_id: BTreeMap<String, u32>,
    by_time: BTreeSet<(DateTime<Utc>, String)>,
    postings: HashMap<String, PostingList>,
    total_len: u64,
    /// Writes since eviction was last checked.
    pub(super) writes_since_check: usize,
}

impl Index {
    /// Number of stored items.
    pub(super) fn len(&self) -> usize {
        self.by_id.len()
    }

    fn doc(&self, slot: u32) -> Option<&Doc> {
        self.docs.get(slot as usize).and_then(Option::as_ref)
    }

    /// The item with this id.
    pub(super) fn get(&self, id: &str) -> Option<&MemoryItem> {
        self.by_id
            .get(id)
            .and_then(|&slot| self.doc(slot))
            .map(|d| &d.item)
    }

    /// Inserts or replaces (upsert).
    pub(super) fn insert(&mut self, analyzed: Analyzed) {
        self.remove(&analyzed.item.id);
        let slot = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        self.total_len += u64::from(analyzed.len);
        self.by_id.insert(analyzed.item.id.clone(), slot);
        self.by_time
            .insert((analyzed.item.created_at, analyzed.item.id.clone()));
        self.docs.push(Some(Doc {
            item: analyzed.item,
            len: analyzed.len,
            terms: analyzed.terms,
        }));
        if let Some(Some(doc)) = self.docs.last() {
            add_postings(&mut self.postings, slot, doc);
        }
    }

    /// Removes the item with this id; returns whether it existed.
    pub(super) fn remove(&mut self, id: &str) -> bool {
        let Some(slot) = self.by_id.remove(id) else {
            return false;
        };
        let Some(doc) = self.docs.get_mut(slot as usize).and_then(Option::take) else {
            return false;
        };
        for (term, _) in &doc.terms {
            if let Some(list) = self.postings.get_mut(term)
                && !list.remove_one()
            {
                self.postings.remove(term);
            }
        }
        self.total_len = self.total_len.saturating_sub(u64::from(doc.len));
        self.by_time.remove(&(doc.item.created_at, doc.item.id));
        self.dead += 1;
        if self.dead >= COMPACT_MIN_DEAD && self.dead > self.by_id.len() {
            self.compact();
        }
        true
    }

    /// Renumbers the live items densely (in slot order) and rebuilds the
    /// posting lists without tombstones.
    fn compact(&mut self) {
        let docs = std::mem::take(&mut self.docs);
        self.postings.clear();
        self.docs.reserve(self.by_id.len());
        for doc in docs.into_iter().flatten() {
            let slot = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
            if let Some(s) = self.by_id.get_mut(&doc.item.id) {
                *s = slot;
            }
            add_postings(&mut self.postings, slot, &doc);
            self.docs.push(Some(doc));
        }
        self.dead = 0;
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
        if let Some(prefix) = filter.prefix.as_deref() {
            let mut found: Vec<&MemoryItem> = self
                .by_id
                .range::<str, _>((
                    std::ops::Bound::Included(prefix),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(id, _)| id.starts_with(prefix))
                .filter_map(|(_, &slot)| self.doc(slot).map(|d| &d.item))
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

    /// The exact BM25 top-k over the inverted index with MaxScore pruning
    /// (see [`topk`]): cost follows the postings of the query's rarer terms,
    /// not every match. `query` holds distinct terms.
    #[allow(clippy::cast_precision_loss)]
    pub(super) fn search(
        &self,
        scorer: &Bm25,
        query: &[String],
        options: &SearchOptions,
    ) -> Vec<ScoredItem> {
        let n = self.len() as f64;
        if n == 0.0 {
            return Vec::new();
        }
        let avg_len = self.total_len as f64 / n;
        let cursors = query
            .iter()
            .enumerate()
            .filter_map(|(term, t)| Some((term, self.postings.get(t)?)))
            .map(|(term, list)| {
                let idf = Bm25::idf(n, f64::from(list.df()));
                Cursor::new(list, term, idf, idf * list.max_tf_part(scorer, avg_len))
            })
            .collect();
        topk::max_score(&self.docs, cursors, scorer, avg_len, options)
    }

    /// BM25 scoring every document that holds a query term (term-at-a-time
    /// accumulation, no pruning): the reference [`Index::search`] must equal.
    #[allow(clippy::cast_precision_loss)]
    pub(super) fn search_exhaustive(
        &self,
        scorer: &Bm25,
        query: &[String],
        options: &SearchOptions,
    ) -> Vec<ScoredItem> {
        let n = self.len() as f64;
        if n == 0.0 {
            return Vec::new();
        }
        let avg_len = self.total_len as f64 / n;
        let mut acc: HashMap<u32, f64> = HashMap::new();
        for list in query.iter().filter_map(|t| self.postings.get(t)) {
            let idf = Bm25::idf(n, f64::from(list.df()));
            for p in list.entries() {
                if let Some(doc) = self.doc(p.slot) {
                    let part = scorer.tf_part(f64::from(p.tf), f64::from(doc.len), avg_len);
                    *acc.entry(p.slot).or_insert(0.0) += idf * part;
                }
            }
        }
        let mut hits: Vec<ScoredItem> = acc
            .into_iter()
            .filter_map(|(slot, score)| {
                let item = &self.doc(slot)?.item;
                let keep = score > 0.0
                    && score.is_finite()
                    && options.min_score.is_none_or(|min| score >= min)
                    && options.filter.matches(item);
                keep.then(|| ScoredItem {
                    item: item.clone(),
                    score,
                })
            })
            .collect();
        hits.sort_by(compare_hits);
        hits.truncate(options.limit);
        hits
    }
}

/// Appends `doc`'s postings at `slot` (larger than every slot indexed so far).
fn add_postings(postings: &mut HashMap<String, PostingList>, slot: u32, doc: &Doc) {
    for (term, tf) in &doc.terms {
        // Look up before inserting: most terms exist, so no key clone.
        if let Some(list) = postings.get_mut(term) {
            list.push(slot, *tf, doc.len);
        } else {
            let mut list = PostingList::default();
            list.push(slot, *tf, doc.len);
            postings.insert(term.clone(), list);
        }
    }
}
