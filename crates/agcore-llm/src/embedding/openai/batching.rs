//! Splitting texts into requests bounded by item count and token count.

use std::ops::Range;

/// Consecutive ranges of `token_counts` (one count per text) such that each
/// range holds at most `max_items` texts (at least 1 is used) and, unless it
/// is a single text, at most `max_tokens` tokens in total. Greedy: a range
/// closes when the next text would break a limit. The ranges cover all texts
/// in order; no range is empty.
pub(crate) fn split_batches(
    token_counts: &[usize],
    max_items: usize,
    max_tokens: usize,
) -> Vec<Range<usize>> {
    let max_items = max_items.max(1);
    let mut ranges = Vec::new();
    let mut start = 0;
    let mut tokens = 0usize;
    for (i, &count) in token_counts.iter().enumerate() {
        let items = i - start;
        if items > 0 && (items >= max_items || tokens.saturating_add(count) > max_tokens) {
            ranges.push(start..i);
            start = i;
            tokens = 0;
        }
        tokens = tokens.saturating_add(count);
    }
    if start < token_counts.len() {
        ranges.push(start..token_counts.len());
    }
    ranges
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn splits_by_items_and_tokens() {
        assert!(split_batches(&[], 4, 100).is_empty());
        assert_eq!(split_batches(&[1; 10], 4, 100), vec![0..4, 4..8, 8..10]);
        assert_eq!(split_batches(&[5, 5, 5, 5], 10, 10), vec![0..2, 2..4]);
        // A text over the token limit travels alone.
        assert_eq!(split_batches(&[3, 50, 3], 10, 10), vec![0..1, 1..2, 2..3]);
        assert_eq!(split_batches(&[1, 1], 0, 10), vec![0..1, 1..2]);
    }

    proptest! {
        #[test]
        fn ranges_cover_in_order_within_limits(
            counts in proptest::collection::vec(0usize..40, 0..60),
            max_items in 1usize..10,
            max_tokens in 1usize..80,
        ) {
            let ranges = split_batches(&counts, max_items, max_tokens);
            let mut next = 0;
            for r in &ranges {
                prop_assert_eq!(r.start, next);
                prop_assert!(r.end > r.start);
                prop_assert!(r.len() <= max_items);
                let tokens: usize = counts[r.clone()].iter().sum();
                prop_assert!(r.len() == 1 || tokens <= max_tokens);
                next = r.end;
            }
            prop_assert_eq!(next, counts.len());
        }
    }
}
