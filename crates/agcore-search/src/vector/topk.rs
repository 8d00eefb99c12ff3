//! Partial selection of the `k` best hits with a bounded heap.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use super::key::{VectorKey, rank_order};

/// One candidate: its score and key. `Ord` is "ranks worse": the heap's top
/// is the worst kept candidate, the one a better candidate evicts.
struct Worst<'a> {
    score: f32,
    key: &'a Arc<VectorKey>,
}

impl Ord for Worst<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        rank_order(self.score, self.key, other.score, other.key)
    }
}

impl PartialOrd for Worst<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Worst<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Worst<'_> {}

/// Keeps the `k` best of the candidates pushed into it, in [`rank_order`]
/// (`O(n log k)` time, `O(k)` memory).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use agcore_search::vector::{TopK, VectorKey};
/// let keys: Vec<Arc<VectorKey>> = ["a", "b", "c"].map(|id| Arc::new(VectorKey::new("", id))).to_vec();
/// let mut top = TopK::new(2);
/// for (score, key) in [0.1, 0.9, 0.5].into_iter().zip(&keys) {
///     top.push(score, key);
/// }
/// let ids: Vec<&str> = top.into_sorted().iter().map(|(_, k)| k.id.as_str()).collect();
/// assert_eq!(ids, ["b", "c"]);
/// ```
pub struct TopK<'a> {
    k: usize,
    heap: BinaryHeap<Worst<'a>>,
}

impl<'a> TopK<'a> {
    /// An empty selection of at most `k` hits.
    pub fn new(k: usize) -> Self {
        Self {
            k,
            heap: BinaryHeap::with_capacity(k.saturating_add(1).min(4096)),
        }
    }

    /// Offers one candidate.
    pub fn push(&mut self, score: f32, key: &'a Arc<VectorKey>) {
        if self.k == 0 {
            return;
        }
        let candidate = Worst { score, key };
        if self.heap.len() < self.k {
            self.heap.push(candidate);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && candidate < *worst
        {
            *worst = candidate;
        }
    }

    /// The kept candidates, best first.
    pub fn into_sorted(self) -> Vec<(f32, &'a Arc<VectorKey>)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|w| (w.score, w.key))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_in_rank_order() {
        let keys: Vec<Arc<VectorKey>> = ["d", "c", "b", "a"]
            .iter()
            .map(|id| Arc::new(VectorKey::new("", *id)))
            .collect();
        let scores = [0.1, 0.9, 0.5, 0.5];
        let mut top = TopK::new(3);
        for (s, k) in scores.iter().zip(&keys) {
            top.push(*s, k);
        }
        let ids: Vec<&str> = top
            .into_sorted()
            .iter()
            .map(|(_, k)| k.id.as_str())
            .collect();
        assert_eq!(ids, ["c", "a", "b"]);
    }
}
