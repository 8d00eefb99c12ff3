//! The state behind [`InMemoryStore`](super::InMemoryStore): items, an id
//! index, a time index and an inverted index for BM25.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use crate::retriever::{Bm25, compare_hits};
use crate::{MemoryFilter, MemoryItem, ScoredItem, SearchOptions};

/// One stored item with its term frequencies.
struct Doc {
    item: MemoryItem,
    /// Number of terms (with repeats): BM25's document length.
    len: u32,
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
#[derive(Default)]
pub(super) struct Index {
    docs: Vec<Option<Doc>>,
    free: Vec<u32>,
    by_id: BTreeMap<String, u32>,
    by_time: BTreeSet<(DateTime<Utc>, String)>,
    postings: HashMap<String, HashMap<u32, u32>>,
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
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                let slot = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
                self.docs.push(None);
                slot
            }
        };
        for (term, tf) in &analyzed.terms {
            // Look up before inserting: most terms exist, so no key clone.
            if let Some(list) = self.postings.get_mut(term) {
                list.insert(slot, *tf);
            } else {
                self.postings
                    .insert(term.clone(), HashMap::from([(slot, *tf)]));
            }
        }
        self.total_len += u64::from(analyzed.len);
        self.by_id.insert(analyzed.item.id.clone(), slot);
        self.by_time
            .insert((analyzed.item.created_at, analyzed.item.id.clone()));
        if let Some(cell) = self.docs.get_mut(slot as usize) {
            *cell = Some(Doc {
                item: analyzed.item,
                len: analyzed.len,
                terms: analyzed.terms,
            });
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
            if let Some(list) = self.postings.get_mut(term) {
                list.remove(&slot);
                if list.is_empty() {
                    self.postings.remove(term);
                }
            }
        }
        self.total_len = self.total_len.saturating_sub(u64::from(doc.len));
        self.by_time.remove(&(doc.item.created_at, doc.item.id));
        self.free.push(slot);
        true
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

    /// BM25 over the inverted index: only documents holding a query term are
    /// touched. `query` holds distinct terms.
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
        let lists: Vec<&HashMap<u32, u32>> =
            query.iter().filter_map(|t| self.postings.get(t)).collect();
        let touched_max: usize = lists.iter().map(|l| l.len()).sum();
        // Dense accumulation when many documents are touched, sparse otherwise
        // (so a rare-term query on a huge store does not clear a huge array).
        let mut acc = if touched_max.saturating_mul(8) >= self.docs.len() {
            Accumulator::Dense(vec![0.0; self.docs.len()], Vec::new())
        } else {
            Accumulator::Sparse(HashMap::with_capacity(touched_max))
        };
        for list in lists {
            let idf = Bm25::idf(n, list.len() as f64);
            for (&slot, &tf) in list {
                if let Some(doc) = self.doc(slot) {
                    let part = scorer.tf_part(f64::from(tf), f64::from(doc.len), avg_len);
                    acc.add(slot, idf * part);
                }
            }
        }
        let mut hits: Vec<(f64, &MemoryItem)> = acc
            .into_scores()
            .filter_map(|(slot, score)| {
                let item = &self.doc(slot)?.item;
                let keep = score > 0.0
                    && options.min_score.is_none_or(|min| score >= min)
                    && options.filter.matches(item);
                keep.then_some((score, item))
            })
            .collect();
        let by_rank = |a: &(f64, &MemoryItem), b: &(f64, &MemoryItem)| {
            b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id))
        };
        let k = options.limit;
        if hits.len() > k && k > 0 {
            hits.select_nth_unstable_by(k - 1, by_rank);
            hits.truncate(k);
        }
        hits.sort_by(by_rank);
        let mut out: Vec<ScoredItem> = hits
            .into_iter()
            .take(k)
            .map(|(score, item)| ScoredItem {
                item: item.clone(),
                score,
            })
            .collect();
        out.sort_by(compare_hits);
        out
    }
}

/// Per-document score sums of one query.
enum Accumulator {
    /// One slot per document, plus the slots touched.
    Dense(Vec<f64>, Vec<u32>),
    /// Only the documents touched.
    Sparse(HashMap<u32, f64>),
}

impl Accumulator {
    fn add(&mut self, slot: u32, value: f64) {
        if !(value > 0.0 && value.is_finite()) {
            return;
        }
        match self {
            Self::Dense(scores, touched) => {
                if let Some(s) = scores.get_mut(slot as usize) {
                    if *s == 0.0 {
                        touched.push(slot);
                    }
                    *s += value;
                }
            }
            Self::Sparse(scores) => *scores.entry(slot).or_insert(0.0) += value,
        }
    }

    fn into_scores(self) -> Box<dyn Iterator<Item = (u32, f64)>> {
        match self {
            Self::Dense(scores, touched) => Box::new(
                touched
                    .into_iter()
                    .filter_map(move |slot| scores.get(slot as usize).map(|s| (slot, *s))),
            ),
            Self::Sparse(scores) => Box::new(scores.into_iter()),
        }
    }
}
