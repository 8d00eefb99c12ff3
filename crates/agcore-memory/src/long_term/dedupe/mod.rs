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
//! Candidates come from prefix filtering (Chaudhuri, Ganti and Kaushik,
//! "A primitive operator for similarity joins in data cleaning", ICDE 2006;
//! Bayardo, Ma and Srikant, "Scaling up all pairs similarity search", WWW
//! 2007): with every set's terms ordered rarest first, two sets with
//! Jaccard ≥ t share a term among the first `|x| − ⌈t·|x|⌉ + 1` terms of
//! each, so only sets sharing such a prefix term are compared (and only
//! when their sizes are within the ratio `t`). Rare prefix terms keep the
//! posting lists short: no comparison of every pair.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::entry::{MemoryEntry, MemoryType};
use crate::retriever::index_terms;

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
            terms,
        }
    }
}

/// The default Jaccard threshold of near duplicates.
pub const DEFAULT_DEDUPE_THRESHOLD: f64 = 0.9;

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

/// An entry's dedupe view: its distinct term ids, rarest first and by id.
struct Item {
    id: i64,
    memory_type: MemoryType,
    terms: Vec<u32>,
    by_id: Vec<u32>,
}

/// The near duplicates among `entries` (meant: the active entries of one
/// scope) at Jaccard `threshold` (in `(0, 1]`; values outside are clamped
/// to that range). Entries are ranked by weight, then creation time, then
/// id (higher first); each entry not yet superseded keeps every
/// lower-ranked near duplicate of its type, so a kept entry is never
/// superseded itself and the result does not depend on the input order.
/// Entries without terms are never duplicates.
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
    let t = if threshold.is_nan() {
        1.0
    } else {
        threshold.clamp(f64::MIN_POSITIVE, 1.0)
    };
    let mut ranked: Vec<&TermSet> = entries.iter().collect();
    ranked.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then(b.created_at.cmp(&a.created_at))
            .then(b.id.cmp(&a.id))
    });
    let items = term_items(&ranked);
    let mut postings: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        for term in item.terms.iter().take(prefix_len(item.terms.len(), t)) {
            postings.entry(*term).or_default().push(i);
        }
    }
    let mut superseded = vec![false; items.len()];
    let mut seen = vec![usize::MAX; items.len()];
    let mut out = Vec::new();
    for (i, keeper) in items.iter().enumerate() {
        if superseded.get(i).copied().unwrap_or(true) || keeper.terms.is_empty() {
            continue;
        }
        let prefix = prefix_len(keeper.terms.len(), t);
        for term in keeper.terms.iter().take(prefix) {
            let Some(list) = postings.get(term) else {
                continue;
            };
            for &j in list {
                // Only lower-ranked entries, each compared once per keeper.
                if j <= i || seen.get(j) == Some(&i) || superseded.get(j) != Some(&false) {
                    continue;
                }
                if let Some(slot) = seen.get_mut(j) {
                    *slot = i;
                }
                let Some(other) = items.get(j) else { continue };
                if other.memory_type == keeper.memory_type
                    && jaccard_at_least(&keeper.by_id, &other.by_id, t)
                {
                    if let Some(flag) = superseded.get_mut(j) {
                        *flag = true;
                    }
                    out.push(Duplicate {
                        superseded: other.id,
                        kept: keeper.id,
                    });
                }
            }
        }
    }
    out
}

/// Each entry's distinct terms as ids, ordered rarest first (by
/// document frequency, then id) — the global order prefix filtering needs.
fn term_items(ranked: &[&TermSet]) -> Vec<Item> {
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut freq: Vec<u32> = Vec::new();
    let mut items: Vec<Item> = ranked
        .iter()
        .map(|e| {
            let mut terms: Vec<u32> = e
                .terms
                .iter()
                .map(|term| {
                    let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                    match ids.get(term.as_str()) {
                        Some(id) => *id,
                        None => {
                            ids.insert(term.clone(), next);
                            next
                        }
                    }
                })
                .collect();
            terms.sort_unstable();
            terms.dedup();
            for &t in &terms {
                let slot = usize::try_from(t).unwrap_or(usize::MAX);
                if freq.len() <= slot {
                    freq.resize(slot + 1, 0);
                }
                if let Some(f) = freq.get_mut(slot) {
                    *f += 1;
                }
            }
            Item {
                id: e.id,
                memory_type: e.memory_type,
                by_id: terms.clone(),
                terms,
            }
        })
        .collect();
    let df = |t: u32| {
        freq.get(usize::try_from(t).unwrap_or(usize::MAX))
            .copied()
            .unwrap_or(0)
    };
    for item in &mut items {
        item.terms.sort_unstable_by_key(|&t| (df(t), t));
    }
    items
}

/// The prefix length of a set of `n` terms at threshold `t`: `n − ⌈t·n⌉ + 1`.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
fn prefix_len(n: usize, t: f64) -> usize {
    // The small tolerance keeps t·n = 9.000000000000002 from rounding up to 10.
    let needed = ((t * n as f64) - 1e-9).ceil().max(0.0) as usize;
    (n + 1).saturating_sub(needed).min(n)
}

/// Whether the Jaccard similarity of `a` and `b` (distinct term ids in
/// ascending order) is at least `t`; rejects on size first.
#[allow(clippy::cast_precision_loss)]
fn jaccard_at_least(a: &[u32], b: &[u32], t: f64) -> bool {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() || (small.len() as f64) < t * large.len() as f64 - 1e-9 {
        return false;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0_usize);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
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
mod tests;
