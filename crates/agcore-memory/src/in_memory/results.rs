//! The best `k` results of a search so far, ranked score first, then id.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::{MemoryItem, ScoredItem, SearchOptions};

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

/// What became of a candidate offered to [`TopK`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Offer {
    /// It is among the best `k` now.
    Entered,
    /// It tied the k-th result's score and lost on its id.
    TieLost,
    /// Below the k-th result, the minimum score or the filter.
    Rejected,
}

/// The best `k` results seen so far, with the filter and minimum score.
pub(super) struct TopK<'a> {
    heap: BinaryHeap<Held<'a>>,
    k: usize,
    options: &'a SearchOptions,
}

impl<'a> TopK<'a> {
    /// Room for `options.limit` results.
    pub(super) fn new(options: &'a SearchOptions) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(options.limit.saturating_add(1)),
            k: options.limit,
            options,
        }
    }

    /// Documents whose score bound is below this cannot enter.
    pub(super) fn threshold(&self) -> f64 {
        let floor = self.options.min_score.unwrap_or(0.0).max(0.0);
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => worst.score.max(floor),
            _ => floor,
        }
    }

    /// The k-th score when `k` results are held and it is at least the
    /// minimum score: documents tying it enter only with a smaller id.
    pub(super) fn full_at(&self) -> Option<f64> {
        let floor = self.options.min_score.unwrap_or(0.0).max(0.0);
        self.heap
            .peek()
            .filter(|worst| self.heap.len() >= self.k && worst.score >= floor)
            .map(|worst| worst.score)
    }

    pub(super) fn offer(&mut self, score: f64, item: &'a MemoryItem) -> Offer {
        let passes = score > 0.0
            && score.is_finite()
            && self.options.min_score.is_none_or(|min| score >= min);
        if !passes {
            return Offer::Rejected;
        }
        if self.heap.len() >= self.k {
            let Some(worst) = self.heap.peek() else {
                return Offer::Rejected;
            };
            if !worst.beaten_by(score, &item.id) {
                let tie = score.total_cmp(&worst.score) == Ordering::Equal;
                return if tie { Offer::TieLost } else { Offer::Rejected };
            }
            if !self.options.filter.matches(item) {
                return Offer::Rejected;
            }
            self.heap.pop();
        } else if !self.options.filter.matches(item) {
            return Offer::Rejected;
        }
        self.heap.push(Held { score, item });
        Offer::Entered
    }

    pub(super) fn into_hits(self) -> Vec<ScoredItem> {
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
