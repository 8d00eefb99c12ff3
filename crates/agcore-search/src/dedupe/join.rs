//! The similarity join behind [`near_duplicate_pairs`](super::near_duplicate_pairs):
//! PPJoin (Xiao, Wang, Lin and Yu, "Efficient similarity joins for near
//! duplicate detection", WWW 2008) on the prefix filtering of Bayardo, Ma
//! and Srikant ("Scaling up all pairs similarity search", WWW 2007).
//!
//! Terms are renumbered by ascending document frequency (rarest first), so
//! every set is a sorted array of ranks. Entries are swept in rank order
//! (weight, creation time, id, higher first); an entry is superseded by the
//! first kept entry before it with Jaccard ≥ t, and only kept entries are
//! indexed — by the terms of their prefix `|x| − ⌈t·|x|⌉ + 1`. A probe
//! counts the prefix terms it shares with each indexed entry in a reusable
//! array (no hash map), drops candidates by the length filter
//! (`t·|x| ≤ |y| ≤ |x|/t`) and the positional filter (the shared terms so
//! far plus the terms left after the match position must reach the needed
//! overlap `⌈t/(1+t)·(|x|+|y|)⌉`), and verifies the rest with a merge that
//! stops as soon as the overlap can no longer be reached.

use std::collections::HashMap;

/// The needed overlap of two sets of sizes `a` and `b` (slightly lowered,
/// so a filter never drops a pair the exact test would accept).
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
fn needed_overlap(a: usize, b: usize, t: f64) -> usize {
    ((t / (1.0 + t) * (a + b) as f64) - 1e-6).ceil().max(1.0) as usize
}

/// The prefix length of a set of `n` terms at threshold `t`: `n − ⌈t·n⌉ + 1`.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub(super) fn prefix_len(n: usize, t: f64) -> usize {
    // The small tolerance keeps t·n = 9.000000000000002 from rounding up to 10.
    let needed = ((t * n as f64) - 1e-9).ceil().max(0.0) as usize;
    (n + 1).saturating_sub(needed).min(n)
}

/// Whether sizes `a` and `b` pass the length filter at `t`.
#[allow(clippy::cast_precision_loss)]
fn lengths_fit(a: usize, b: usize, t: f64) -> bool {
    let (small, large) = if a <= b { (a, b) } else { (b, a) };
    small > 0 && (small as f64) >= t * large as f64 - 1e-9
}

/// The distinct terms of each set as ranks in ascending document frequency
/// (then first appearance), each set sorted ascending.
pub(super) fn ranked_terms<'a, I>(sets: I) -> Vec<Vec<u32>>
where
    I: IntoIterator<Item = &'a [String]>,
{
    let mut ids: HashMap<&'a str, u32> = HashMap::new();
    let mut df: Vec<u32> = Vec::new();
    let mut out: Vec<Vec<u32>> = sets
        .into_iter()
        .map(|terms| {
            let mut set: Vec<u32> = terms
                .iter()
                .map(|term| {
                    let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                    *ids.entry(term.as_str()).or_insert(next)
                })
                .collect();
            set.sort_unstable();
            set.dedup();
            for &t in &set {
                let slot = t as usize;
                if df.len() <= slot {
                    df.resize(slot + 1, 0);
                }
                if let Some(f) = df.get_mut(slot) {
                    *f += 1;
                }
            }
            set
        })
        .collect();
    let mut order: Vec<u32> = (0..u32::try_from(df.len()).unwrap_or(u32::MAX)).collect();
    order.sort_unstable_by_key(|&t| (df.get(t as usize).copied().unwrap_or(0), t));
    let mut rank = vec![0_u32; df.len()];
    for (r, &t) in order.iter().enumerate() {
        if let Some(slot) = rank.get_mut(t as usize) {
            *slot = u32::try_from(r).unwrap_or(u32::MAX);
        }
    }
    for set in &mut out {
        for t in set.iter_mut() {
            *t = rank.get(*t as usize).copied().unwrap_or(*t);
        }
        set.sort_unstable();
    }
    out
}

/// An inverted index of prefix terms: per term rank, (set, position).
pub(super) struct Index {
    lists: Vec<Vec<(u32, u32)>>,
    empty: bool,
}

impl Index {
    pub(super) fn new(terms: usize) -> Self {
        Self {
            lists: vec![Vec::new(); terms],
            empty: true,
        }
    }

    /// Indexes set `id` by its prefix.
    pub(super) fn add(&mut self, id: u32, set: &[u32], t: f64) {
        for (pos, &term) in set.iter().take(prefix_len(set.len(), t)).enumerate() {
            if let Some(list) = self.lists.get_mut(term as usize) {
                list.push((id, u32::try_from(pos).unwrap_or(u32::MAX)));
                self.empty = false;
            }
        }
    }
}

/// Reusable per-candidate state of probes: shared prefix terms (or
/// [`PRUNED`]) and the touched candidates.
pub(super) struct Probe {
    overlap: Vec<u32>,
    touched: Vec<u32>,
}

const PRUNED: u32 = u32::MAX;

impl Probe {
    pub(super) fn new(sets: usize) -> Self {
        Self {
            overlap: vec![0; sets],
            touched: Vec::new(),
        }
    }

    /// The first set (lowest id) in `index` whose Jaccard similarity with
    /// `x` is at least `t`; `sets` holds every set by id.
    pub(super) fn first_match(
        &mut self,
        index: &Index,
        sets: &[Vec<u32>],
        x: &[u32],
        t: f64,
    ) -> Option<u32> {
        if index.empty || x.is_empty() {
            return None;
        }
        for (i, &term) in x.iter().take(prefix_len(x.len(), t)).enumerate() {
            let Some(list) = index.lists.get(term as usize) else {
                continue;
            };
            for &(y, j) in list {
                let (Some(seen), Some(other)) =
                    (self.overlap.get_mut(y as usize), sets.get(y as usize))
                else {
                    continue;
                };
                if *seen == PRUNED {
                    continue;
                }
                if *seen == 0 {
                    self.touched.push(y);
                    if !lengths_fit(x.len(), other.len(), t) {
                        *seen = PRUNED;
                        continue;
                    }
                }
                let rest = (x.len() - i - 1).min(other.len() - j as usize - 1);
                let need = needed_overlap(x.len(), other.len(), t);
                if (*seen as usize) + 1 + rest < need {
                    *seen = PRUNED;
                } else {
                    *seen += 1;
                }
            }
        }
        self.touched.sort_unstable();
        let mut found = None;
        for &y in &self.touched {
            let Some(seen) = self.overlap.get_mut(y as usize) else {
                continue;
            };
            let live = *seen != PRUNED;
            *seen = 0;
            if found.is_none() && live && sets.get(y as usize).is_some_and(|o| similar(x, o, t)) {
                found = Some(y);
            }
        }
        self.touched.clear();
        found
    }
}

/// Whether the Jaccard similarity of `a` and `b` (distinct term ranks in
/// ascending order) is at least `t`: a merge that gives up once the needed
/// overlap is out of reach, then the exact test `|A∩B| ≥ t·|A∪B|`.
#[allow(clippy::cast_precision_loss)]
pub(super) fn similar(a: &[u32], b: &[u32], t: f64) -> bool {
    if !lengths_fit(a.len(), b.len(), t) {
        return false;
    }
    let need = needed_overlap(a.len(), b.len(), t);
    let (mut i, mut j, mut shared) = (0, 0, 0_usize);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        if shared + (a.len() - i).min(b.len() - j) < need {
            return false;
        }
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - shared;
    shared as f64 >= t * union as f64 - 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_lengths_follow_the_bound() {
        assert_eq!(prefix_len(10, 0.9), 2);
        assert_eq!(prefix_len(1, 0.9), 1);
        assert_eq!(prefix_len(5, 1.0), 1);
        assert_eq!(prefix_len(4, 0.5), 3);
        assert_eq!(prefix_len(0, 0.9), 0);
    }
}
