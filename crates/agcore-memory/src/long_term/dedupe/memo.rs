//! What the last dedupe of each scope kept, so the next one is incremental.
//!
//! After a run, the kept entries of a scope hold no near-duplicate pair.
//! Each is remembered by id with a fingerprint of its type and terms; in
//! the next run at the same threshold, an entry whose fingerprint is
//! unchanged is only compared with new or changed entries
//! ([`near_duplicates_among`](super::near_duplicates_among)) — the
//! incremental form of the all-pairs join (Bayardo, Ma and Srikant,
//! "Scaling up all pairs similarity search", WWW 2007). Fingerprints, not
//! timestamps: imports keep their `updated_at`, clocks differ. Kept in
//! memory only; the first run of a process compares all entries.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Duplicate, TermSet};
use crate::long_term::scope::MemoryScope;

/// The entries one run of a scope kept.
#[derive(Debug)]
struct Kept {
    threshold: f64,
    fingerprints: HashMap<i64, u64>,
}

/// Per scope, the entries the last dedupe kept. Cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub(crate) struct DedupeMemo {
    scopes: Arc<Mutex<HashMap<MemoryScope, Kept>>>,
}

fn fingerprint(set: &TermSet) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    set.memory_type.hash(&mut hasher);
    set.terms.hash(&mut hasher);
    hasher.finish()
}

impl DedupeMemo {
    /// Whether each of `sets` is fresh: not kept unchanged by the last run
    /// of `scope` at `threshold` (every one when there was none).
    pub(crate) fn fresh(&self, scope: &MemoryScope, threshold: f64, sets: &[TermSet]) -> Vec<bool> {
        let scopes = self.scopes.lock().unwrap_or_else(PoisonError::into_inner);
        match scopes.get(scope) {
            Some(kept) if kept.threshold.to_bits() == threshold.to_bits() => sets
                .iter()
                .map(|s| kept.fingerprints.get(&s.id) != Some(&fingerprint(s)))
                .collect(),
            _ => vec![true; sets.len()],
        }
    }

    /// Records what a run of `scope` at `threshold` kept: `sets` less the
    /// `found` superseded ones.
    pub(crate) fn record(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        sets: &[TermSet],
        found: &[Duplicate],
    ) {
        let superseded: std::collections::HashSet<i64> =
            found.iter().map(|d| d.superseded).collect();
        let fingerprints = sets
            .iter()
            .filter(|s| !superseded.contains(&s.id))
            .map(|s| (s.id, fingerprint(s)))
            .collect();
        let mut scopes = self.scopes.lock().unwrap_or_else(PoisonError::into_inner);
        scopes.insert(
            scope.clone(),
            Kept {
                threshold,
                fingerprints,
            },
        );
    }
}
