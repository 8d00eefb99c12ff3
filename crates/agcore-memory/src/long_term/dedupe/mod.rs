//! Near-duplicate detection for maintenance (`docs/memory.md`, *Maintenance*).
//!
//! Two active entries of one scope and one [`MemoryType`] are near duplicates
//! when the Jaccard similarity `|A ∩ B| / |A ∪ B|` of the term sets of their
//! indexed text (name, content and description through the store analyzer,
//! [`index_terms`]: stemmed words, CJK bigrams — the terms a search sees;
//! [`TermSet`]) is at least a threshold (default 0.9). Texts that differ
//! only in case, spacing, punctuation, stop words or inflection have equal
//! term sets.
//!
//! Pairs come from an all-pairs similarity join
//! ([`agcore_search::dedupe::near_duplicate_pairs`]): terms ordered
//! by ascending document frequency, prefix filtering (Chaudhuri, Ganti and
//! Kaushik, ICDE 2006; Bayardo, Ma and Srikant, "Scaling up all pairs
//! similarity search", WWW 2007), the length and positional filters and
//! early-terminating verification of PPJoin (Xiao, Wang, Lin and Yu,
//! "Efficient similarity joins for near duplicate detection", WWW 2008).
//! Maintenance runs are incremental ([`DedupeMemo`]): entries left as they
//! were since the last run of a scope are only compared with new or changed
//! ones.

use agcore_search::dedupe::{near_duplicate_pairs, without_covered_unigrams};
use chrono::{DateTime, Utc};

use super::entry::{MemoryEntry, MemoryType};
use crate::retriever::index_terms;

mod memo;

/// The default Jaccard threshold of near duplicates (0.9), from
/// `agcore-search`.
pub use agcore_search::dedupe::DEFAULT_DEDUPE_THRESHOLD;
pub(crate) use memo::DedupeMemo;

/// An active entry as the dedupe sees it
/// ([`LongTermBackend::dedupe_terms`](super::LongTermBackend::dedupe_terms)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TermSet {
    /// Entry id.
    pub id: i64,
    /// Its kind: only entries of one kind are compared.
    pub memory_type: MemoryType,
    /// Its weight (the heavier entry is kept).
    pub weight: f64,
    /// When it was created (on equal weights the newer one is kept).
    pub created_at: DateTime<Utc>,
    /// The analyzer terms of its search text
    /// ([`MemoryEntry::search_text`], [`index_terms`]); duplicates allowed.
    pub terms: Vec<String>,
}

impl TermSet {
    /// The view of `entry`: its fields and the terms of its search text.
    pub fn of(entry: &MemoryEntry) -> Self {
        Self::new(
            entry.id,
            entry.memory_type,
            entry.weight,
            entry.created_at,
            index_terms(&entry.search_text()),
        )
    }

    /// A view from stored parts (a backend that keeps the terms).
    pub fn new(
        id: i64,
        memory_type: MemoryType,
        weight: f64,
        created_at: DateTime<Utc>,
        terms: Vec<String>,
    ) -> Self {
        Self {
            id,
            memory_type,
            weight,
            created_at,
            terms: without_covered_unigrams(terms),
        }
    }
}

/// One near duplicate found by [`near_duplicates`]: entry `superseded` is
/// superseded by entry `kept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Duplicate {
    /// The entry to archive.
    pub superseded: i64,
    /// The entry it duplicates, which stays active.
    pub kept: i64,
}

/// The near duplicates among `entries` (meant: the active entries of one
/// scope) at Jaccard `threshold` (in `(0, 1]`; values outside are clamped
/// to that range). Entries are ranked by weight, then creation time, then
/// id (higher first); each entry not yet superseded keeps every
/// lower-ranked near duplicate of its type, so a kept entry is never
/// superseded itself and the result does not depend on the input order.
/// Entries without terms are never duplicates. The result is ordered by
/// the rank of the kept entry, then of the superseded one.
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{near_duplicates, MemoryEntry, MemoryType, TermSet};
/// # fn entry(id: i64, weight: f64, content: &str) -> MemoryEntry {
/// #     let now = chrono::Utc::now();
/// #     MemoryEntry { id, agent_name: "a".into(), user_id: "u".into(),
/// #         memory_type: MemoryType::User, name: String::new(),
/// #         content: content.into(), description: String::new(), metadata: Default::default(),
/// #         tags: vec![], weight, archived: false, use_count: 0, last_used_at: None,
/// #         weight_updated_at: now, created_at: now, updated_at: now }
/// # }
/// let entries = [
///     entry(1, 1.0, "The user prefers green tea."),
///     entry(2, 1.5, "user prefers green teas"),
///     entry(3, 1.0, "The user prefers black coffee"),
/// ];
/// let sets: Vec<TermSet> = entries.iter().map(TermSet::of).collect();
/// let found = near_duplicates(&sets, 0.9);
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].superseded, found[0].kept), (1, 2));
/// ```
pub fn near_duplicates(entries: &[TermSet], threshold: f64) -> Vec<Duplicate> {
    near_duplicates_among(entries, threshold, &|_| true)
}

/// [`near_duplicates`] when the entries for which `fresh` is false are
/// known to hold no near-duplicate pair among themselves (they are what a
/// previous run kept, unchanged): those are only compared with the fresh
/// ones. Same result as [`near_duplicates`] when that holds.
pub(crate) fn near_duplicates_among(
    entries: &[TermSet],
    threshold: f64,
    fresh: &dyn Fn(&TermSet) -> bool,
) -> Vec<Duplicate> {
    let mut ranked: Vec<&TermSet> = entries.iter().collect();
    ranked.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then(b.created_at.cmp(&a.created_at))
            .then(b.id.cmp(&a.id))
    });
    let mut types: Vec<MemoryType> = ranked.iter().map(|e| e.memory_type).collect();
    types.sort_unstable_by_key(|k| k.as_str());
    types.dedup();
    // (rank of the kept entry, rank of the superseded one)
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for kind in types {
        let group: Vec<usize> = (0..ranked.len())
            .filter(|&r| ranked.get(r).is_some_and(|e| e.memory_type == kind))
            .collect();
        let sets = group
            .iter()
            .filter_map(|&r| ranked.get(r).map(|e| e.terms.as_slice()));
        let flags: Vec<bool> = group
            .iter()
            .map(|&r| ranked.get(r).is_none_or(|e| fresh(e)))
            .collect();
        for (keeper, superseded) in near_duplicate_pairs(sets, &flags, threshold) {
            if let (Some(&k), Some(&s)) = (group.get(keeper), group.get(superseded)) {
                pairs.push((k, s));
            }
        }
    }
    pairs.sort_unstable();
    pairs
        .into_iter()
        .filter_map(|(k, s)| {
            Some(Duplicate {
                superseded: ranked.get(s)?.id,
                kept: ranked.get(k)?.id,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
