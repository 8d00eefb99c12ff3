//! The changed span of each sequence a write touched: the first and last
//! place where a member appeared, left or changed, that a store reads the
//! sequence's run around ([`upkeep`](super::upkeep)).

use std::collections::BTreeMap;

/// The first and last of `places` in each sequence (`sequence` of a
/// place), by sequence. A place orders by sequence first, then by its
/// position in it (a store's list order).
pub fn changed_spans<S: Ord + Clone, P: Ord + Clone>(
    places: impl IntoIterator<Item = P>,
    sequence: impl Fn(&P) -> &S,
) -> BTreeMap<S, (P, P)> {
    let mut out: BTreeMap<S, (P, P)> = BTreeMap::new();
    for at in places {
        match out.get_mut(sequence(&at)) {
            Some((lo, hi)) => {
                if at < *lo {
                    *lo = at;
                } else if at > *hi {
                    *hi = at;
                }
            }
            None => {
                out.insert(sequence(&at).clone(), (at.clone(), at));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sequence_spans_its_first_to_its_last_place() {
        let places = [("s", 5), ("t", 1), ("s", 2), ("s", 9), ("s", 4)];
        let spans = changed_spans(places, |p| &p.0);
        assert_eq!(spans.get("s"), Some(&(("s", 2), ("s", 9))));
        assert_eq!(spans.get("t"), Some(&(("t", 1), ("t", 1))));
        assert_eq!(spans.len(), 2);
    }
}
