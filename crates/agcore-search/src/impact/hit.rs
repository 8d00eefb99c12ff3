//! The documents of a top-k search: found by random access ([`Fetched`])
//! and ranked ([`Hit`]).

use std::cmp::Ordering;

/// A document found by random access: its tie-break key (ascending wins),
/// its `terms` column and its context field (`None`: not in a sequence).
pub struct Fetched<K> {
    /// The tie-break key.
    pub key: K,
    /// The document's own terms, space-joined.
    pub terms: String,
    /// Its context field's terms, space-joined.
    pub context: Option<String>,
}

/// A result: tie-break key, document number, score.
#[derive(Debug)]
pub struct Hit<K> {
    /// The tie-break key (ascending wins among equal scores).
    pub key: K,
    /// The document number.
    pub doc: i64,
    /// Its score.
    pub score: f64,
}

impl<K: Ord> PartialEq for Hit<K> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<K: Ord> Eq for Hit<K> {}
impl<K: Ord> PartialOrd for Hit<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K: Ord> Ord for Hit<K> {
    /// Worse is greater: lower score, then larger key.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.key.cmp(&other.key))
    }
}
