//! Top-k BM25 retrieval with MaxScore dynamic pruning.
//!
//! MaxScore (Turtle & Flood 1995, "Query evaluation: strategies and
//! optimizations", Information Processing & Management 31(6)) traverses
//! document-ordered posting lists. Each term has an upper bound of its
//! contribution; once `k` results are held, the terms whose bounds sum below
//! the k-th score are *non-essential*: a document holding only those terms
//! cannot enter the results, so candidates come from the essential lists
//! alone and the non-essential lists are only probed (skipping ahead) for the
//! candidates whose score can still reach the threshold. The result is the
//! exact top-k of exhaustive scoring (same scores, same id tie-break).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::index::Doc;
use super::postings::Cursor;
use crate::retriever::Bm25;
use crate::{MemoryItem, ScoredItem, SearchOptions};

/// Relative slack on upper bounds so float rounding never prunes a document
/// whose exact score reaches the threshold.
const SLACK: f64 = 1.0 + 1e-9;

/// A held result; the heap's greatest element is the worst one.
struct Held<'a> {
    score: f64,
    item: &'a MemoryItem,
}

impl Held<'_> {
    /// Whether `score`/`id` ranks before this result (score desc, then id asc).
    fn beaten_by(&self, score: f64, id: &str) -> bool {
        match score.total_cmp(&self.score) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => id < self.item.id.as_str(),
        }
    }
}

impl PartialEq for Held<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Held<'_> {}
impl PartialOrd for Held<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Held<'_> {
    /// Worse is greater: lower score, then larger id.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.item.id.cmp(&other.item.id))
    }
}

/// The best `k` results seen so far, with the filter and minimum score.
struct TopK<'a> {
    heap: BinaryHeap<Held<'a>>,
    k: usize,
    options: &'a SearchOptions,
}

impl<'a> TopK<'a> {
    /// Documents whose score bound is below this cannot enter.
    fn threshold(&self) -> f64 {
        let floor = self.options.min_score.unwrap_or(0.0).max(0.0);
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => worst.score.max(floor),
            _ => floor,
        }
    }

    fn offer(&mut self, score: f64, item: &'a MemoryItem) {
        let passes = score > 0.0
            && score.is_finite()
            && self.options.min_score.is_none_or(|min| score >= min);
        if !passes {
            return;
        }
        if self.heap.len() >= self.k {
            let beats = self
                .heap
                .peek()
                .is_some_and(|worst| worst.beaten_by(score, &item.id));
            if !beats || !self.options.filter.matches(item) {
                return;
            }
            self.heap.pop();
        } else if !self.options.filter.matches(item) {
            return;
        }
        self.heap.push(Held { score, item });
    }

    fn into_hits(self) -> Vec<ScoredItem> {
        // Ascending by `Ord` is best first.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|h| ScoredItem {
                item: h.item.clone(),
                score: h.score,
            })
            .collect()
    }
}

/// The exact BM25 top-`options.limit` over `lists` (one cursor per distinct
/// query term, `Cursor::term` numbering them in query order), best first, ties by id. `docs` is the slot table (empty slots
/// are deleted documents), `avg_len` the mean document length.
pub(super) fn max_score(
    docs: &[Option<Doc>],
    mut lists: Vec<Cursor<'_>>,
    scorer: &Bm25,
    avg_len: f64,
    options: &SearchOptions,
) -> Vec<ScoredItem> {
    let k = options.limit;
    let mut top = TopK {
        heap: BinaryHeap::with_capacity(k.saturating_add(1)),
        k,
        options,
    };
    if k == 0 {
        return Vec::new();
    }
    lists.sort_by(|a, b| a.upper.total_cmp(&b.upper));
    // prefix[i] = bound of a document holding only terms 0..=i.
    let prefix: Vec<f64> = lists
        .iter()
        .scan(0.0, |sum, c| {
            *sum += c.upper;
            Some(*sum * SLACK)
        })
        .collect();
    let mut parts = vec![0.0; lists.iter().map(|c| c.term + 1).max().unwrap_or(0)];
    let mut first_essential = 0usize;
    loop {
        let theta = top.threshold();
        while prefix.get(first_essential).is_some_and(|&p| p < theta) {
            first_essential += 1;
        }
        let (non_essential, essential) = lists.split_at_mut(first_essential.min(prefix.len()));
        let Some(slot) = essential
            .iter()
            .filter_map(|c| c.current().map(|p| p.slot))
            .min()
        else {
            break;
        };
        let doc = docs.get(slot as usize).and_then(Option::as_ref);
        let len = doc.map_or(0.0, |d| f64::from(d.len));
        // The running sum decides pruning; the reported score adds the
        // parts in query order, as exhaustive scoring does, so equal
        // documents get bit-identical scores and ties fall to the id.
        parts.fill(0.0);
        let mut score = 0.0;
        for cursor in essential.iter_mut() {
            if let Some(p) = cursor.current().filter(|p| p.slot == slot) {
                let part = cursor.idf * scorer.tf_part(f64::from(p.tf), len, avg_len);
                score += part;
                if let Some(cell) = parts.get_mut(cursor.term) {
                    *cell = part;
                }
                cursor.advance();
            }
        }
        let Some(doc) = doc else {
            continue; // a tombstone
        };
        let mut pruned = false;
        for (cursor, bound) in non_essential.iter_mut().zip(&prefix).rev() {
            if score + bound < theta {
                pruned = true;
                break;
            }
            if let Some(p) = cursor.seek(slot) {
                let part = cursor.idf * scorer.tf_part(f64::from(p.tf), len, avg_len);
                score += part;
                if let Some(cell) = parts.get_mut(cursor.term) {
                    *cell = part;
                }
            }
        }
        if !pruned {
            top.offer(parts.iter().fold(0.0, |sum, part| sum + part), &doc.item);
        }
    }
    top.into_hits()
}
