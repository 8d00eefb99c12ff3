//! [`PrefixBounds`]: the score bounds of MaxScore's non-essential lists
//! when posting lists are traversed document by document.

/// Relative slack on upper bounds so float rounding never prunes a document
/// whose exact score reaches the threshold.
const SLACK: f64 = 1.0 + 1e-9;

/// Per-prefix score bounds of a query's posting lists, for MaxScore over
/// document-ordered lists (Turtle & Flood 1995): the lists sorted by
/// ascending upper bound (the most a list's term adds to any document's
/// score, e.g. `idf · max tf part`), and for each prefix `0..=i` the bound
/// of a document holding only those terms. Once `k` results are held, the
/// leading lists whose prefix bound stays below the `k`-th score are
/// non-essential ([`PrefixBounds::non_essential`]): a document holding only
/// their terms cannot enter the results.
///
/// # Examples
/// ```
/// use agcore_search::pruning::PrefixBounds;
/// // (term number in query order, upper bound), by ascending bound.
/// let bounds = PrefixBounds::new(&[(2, 0.5), (0, 1.0), (1, 4.0)]);
/// assert_eq!(bounds.non_essential(1.6, false), 2); // 0.5 + 1.0 < 1.6
/// assert_eq!(bounds.non_essential(1.5, true), 2); // ties lose: 1.5 ≤ 1.5
/// assert_eq!(bounds.non_essential(1.5, false), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PrefixBounds {
    /// `slack[i]`: bound of a document holding only terms `0..=i`, inflated
    /// against rounding (strict pruning: below it cannot reach the k-th).
    slack: Vec<f64>,
    /// `exact[i]`: the same bound summed in query order like a score, so
    /// no document holding only terms `0..=i` scores above it, bit for bit.
    exact: Vec<f64>,
}

impl PrefixBounds {
    /// The bounds of `lists`: `(term, upper)` per posting list, sorted by
    /// ascending `upper`; `term` numbers the terms in query order (the
    /// order scores are summed in). Cost `O(n² log n)` for `n` lists (a
    /// query's few terms).
    pub fn new(lists: &[(usize, f64)]) -> Self {
        let mut slack = Vec::with_capacity(lists.len());
        let mut exact = Vec::with_capacity(lists.len());
        let mut sum = 0.0;
        for (i, &(_, upper)) in lists.iter().enumerate() {
            sum += upper;
            slack.push(sum * SLACK);
            let mut held: Vec<(usize, f64)> = lists.get(..=i).unwrap_or_default().to_vec();
            held.sort_by_key(|&(term, _)| term);
            exact.push(held.iter().fold(0.0, |s, &(_, u)| s + u));
        }
        Self { slack, exact }
    }

    /// How many leading lists are non-essential against the `k`-th score
    /// `theta`; with `ties_lose` (a document tying `theta` cannot enter), a
    /// list whose bound only reaches `theta` is too.
    pub fn non_essential(&self, theta: f64, ties_lose: bool) -> usize {
        if ties_lose {
            self.exact.iter().take_while(|&&b| b <= theta).count()
        } else {
            self.slack.iter().take_while(|&&b| b < theta).count()
        }
    }

    /// The inflated prefix bounds, one per list: `slack()[i]` bounds the
    /// score a document gets from lists `0..=i` (a candidate whose partial
    /// score plus it stays below the `k`-th cannot enter).
    pub fn slack(&self) -> &[f64] {
        &self.slack
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// No document holding only the first `i + 1` terms scores above
        /// the exact bound, summed in query order as a score is.
        #[test]
        fn bounds_cover_every_partial_score(
            uppers in prop::collection::vec(0.0_f64..20.0, 1..8),
        ) {
            let mut lists: Vec<(usize, f64)> = uppers.iter().copied().enumerate().collect();
            lists.sort_by(|a, b| a.1.total_cmp(&b.1));
            let bounds = PrefixBounds::new(&lists);
            for i in 0..lists.len() {
                let mut held = lists[..=i].to_vec();
                held.sort_by_key(|&(t, _)| t);
                let score = held.iter().fold(0.0, |s, &(_, u)| s + u);
                prop_assert!(score <= bounds.exact[i]);
                prop_assert!(score <= bounds.slack()[i]);
                prop_assert_eq!(bounds.non_essential(score, true) > i, true);
            }
        }
    }
}
