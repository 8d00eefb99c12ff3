//! Which query terms a top-k search must match: the MaxScore argument
//! (Turtle & Flood 1995, "Query evaluation: strategies and optimizations",
//! Information Processing & Management 31(6)), as a plan over the terms'
//! score bounds ([`MaxScorePlan`]).
//!
//! A term adds at most `idf · (k1 + 1)` to any document's BM25 (or BM25F)
//! score: its saturated term frequency stays below `k1 + 1`. Terms are
//! taken largest bound (rarest) first; the first `e` are *essential*: the
//! search reads their candidates and scores them exactly with every term.
//! A document holding none of them scores below the sum of the other
//! terms' bounds, so when the `k`-th best candidate scores above that sum,
//! the candidates' top `k` is the collection's; otherwise one more term
//! becomes essential. With every term essential the search is exhaustive.
//!
//! A round that leaves out few postings is not worth its cost: when the
//! terms left out match fewer documents together than a minimum (the
//! caller's cost model: [`MIN_SAVED_ROWS`] for one SQL statement, and
//! [`AccessCost`] to choose a scan over the full-text index), every term is
//! matched at once. Nor does a round start whose
//! terms match fewer documents together than the results asked for: it
//! could not settle.
//!
//! For posting lists traversed document by document (an in-memory index),
//! [`PrefixBounds`] gives the bounds that tell essential lists from
//! non-essential ones as the `k`-th score rises.

mod bounds;
mod cost;
mod rounds;

pub use bounds::PrefixBounds;
pub use cost::{AccessCost, MIN_SAVED_ROWS};
pub use rounds::Rounds;

/// Relative slack on the bound: float rounding (in a database server
/// summing the same terms in another order) never prunes a document whose
/// exact score reaches the `k`-th.
const SLACK: f64 = 1e-9;

/// The MaxScore plan for one query: its terms in the order they become
/// essential, with the bound sums that say when a search of the essential
/// terms' candidates has settled (see the [module](self) documentation).
///
/// # Examples
/// ```
/// use agcore_search::pruning::MaxScorePlan;
/// // Bounds idf·(k1 + 1) and document frequencies of three query terms.
/// let plan = MaxScorePlan::new(&[1.0, 9.0, 4.0], &[70_000.0, 100.0, 5_000.0], 1_000);
/// assert_eq!(plan.next(0), 1); // the rarest term first
/// assert_eq!(plan.essential(2), [1, 2]);
/// // 10 results found, the 10th scoring 6.0 > the remaining bound 1.0: settled.
/// assert!(plan.settled(2, 10, 10, Some(6.0)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxScorePlan {
    /// Word indices, largest bound first (ties in query order).
    order: Vec<usize>,
    /// `rest[e]`: the sum of the bounds of `order[e..]`.
    rest: Vec<f64>,
    /// `head[e]`: the sum of the bounds of `order[..e]`.
    head: Vec<f64>,
    /// `rows[e]`: the sum of the document frequencies of `order[e..]`.
    rows: Vec<f64>,
    /// The fewest rows a round must leave out.
    min_saved: f64,
    /// The results asked for (`k`).
    limit: f64,
}

impl MaxScorePlan {
    /// The plan for terms whose scores are at most `bounds` (`idf · (k1 +
    /// 1)` each, [`MAX_TF_PART`](crate::MAX_TF_PART) with the default `k1`,
    /// in query order; not negative) and whose document frequencies are
    /// `dfs`; a round leaves out at least `min_saved` documents' postings or
    /// none (a missing bound or frequency counts as 0).
    pub fn new(bounds: &[f64], dfs: &[f64], min_saved: u64) -> Self {
        let mut order: Vec<usize> = (0..bounds.len()).collect();
        let bound = |i: usize| bounds.get(i).copied().unwrap_or(0.0);
        order.sort_by(|&a, &b| bound(b).total_cmp(&bound(a)).then(a.cmp(&b)));
        let bounds: Vec<f64> = order.iter().map(|&i| bound(i)).collect();
        let mut rest: Vec<f64> = bounds
            .iter()
            .rev()
            .scan(0.0, |sum, b| {
                *sum += b;
                Some(*sum)
            })
            .collect();
        rest.reverse();
        rest.push(0.0);
        let head: Vec<f64> = std::iter::once(0.0)
            .chain(bounds.iter().scan(0.0, |sum, b| {
                *sum += b;
                Some(*sum)
            }))
            .collect();
        let mut rows: Vec<f64> = (order.iter().rev())
            .scan(0.0, |sum, &i| {
                *sum += dfs.get(i).copied().unwrap_or(0.0);
                Some(*sum)
            })
            .collect();
        rows.reverse();
        rows.push(0.0);
        Self {
            order,
            rest,
            head,
            rows,
            min_saved: min_saved as f64,
            limit: 0.0,
        }
    }

    /// The plan for BM25 terms of idfs `idfs` (bounds `idf ·`
    /// [`MAX_TF_PART`](crate::MAX_TF_PART)) and document frequencies `dfs`,
    /// for a search asking for `limit` results ([`Self::new`],
    /// [`Self::for_limit`]).
    pub fn of_idfs(idfs: &[f64], dfs: &[f64], min_saved: u64, limit: usize) -> Self {
        let bounds: Vec<f64> = idfs.iter().map(|idf| idf * crate::MAX_TF_PART).collect();
        Self::new(&bounds, dfs, min_saved).for_limit(limit)
    }

    /// The plan for a search asking for `limit` results: no round starts
    /// whose essential words match fewer documents together (it could not
    /// find `limit` candidates).
    pub fn for_limit(mut self, limit: usize) -> Self {
        self.limit = limit as f64;
        self
    }

    /// The documents the first `e` essential words match, counted once per
    /// word (the postings a `FULLTEXT` match of them reads).
    pub fn matched_rows(&self, e: usize) -> f64 {
        let all = self.rows.first().copied().unwrap_or(0.0);
        all - self.rows.get(e).copied().unwrap_or(0.0)
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the plan has no term (a search of it matches nothing).
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The indices of the first `e` essential words, in query order.
    pub fn essential(&self, e: usize) -> Vec<usize> {
        let mut words: Vec<usize> = self.order.iter().take(e).copied().collect();
        words.sort_unstable();
        words
    }

    /// The smallest number of essential words, at least `from`, that can
    /// settle a search: below it no candidate could outscore the others'
    /// bounds (its best possible score is the essential bounds' sum), or
    /// the essential words match fewer documents than the limit.
    pub fn next(&self, from: usize) -> usize {
        let n = self.len();
        let all = self.rows.first().copied().unwrap_or(0.0);
        let e = (from.max(1)..n)
            .find(
                |&e| match (self.head.get(e), self.rest.get(e), self.rows.get(e)) {
                    (Some(head), Some(rest), Some(left)) => {
                        *head > rest * (1.0 + SLACK) && all - left >= self.limit
                    }
                    _ => true,
                },
            )
            .unwrap_or(n);
        self.worth(e)
    }

    /// `e`, or every word when the words after the first `e` match too few
    /// documents to be worth leaving out.
    fn worth(&self, e: usize) -> usize {
        let saved = self.rows.get(e).copied().unwrap_or(0.0);
        if saved < self.min_saved {
            self.len()
        } else {
            e
        }
    }

    /// The number of essential words for the next round after `e` did not
    /// settle. A larger set has more candidates, so its `k`-th score is at
    /// least `kth`: with `limit` found, the next round takes the fewest
    /// words whose remaining bounds stay below `kth`, and it settles. With
    /// fewer found, [`Self::next`] after `e`; a third round is exhaustive.
    pub fn after(
        &self,
        e: usize,
        found: usize,
        limit: usize,
        kth: Option<f64>,
        round: usize,
    ) -> usize {
        let n = self.len();
        if round >= 2 {
            return n;
        }
        match kth {
            Some(kth) if found >= limit => self.worth(
                (e + 1..n)
                    .find(|&e| self.rest.get(e).is_some_and(|r| r * (1.0 + SLACK) < kth))
                    .unwrap_or(n),
            ),
            _ => self.next(e + 1),
        }
    }

    /// Whether no document outside the candidates of `e` essential words
    /// can score `score` or more (their scores are below the other words'
    /// bounds): with a minimum score, fewer than `limit` candidates reaching
    /// it then settle the search too.
    pub fn below(&self, e: usize, score: f64) -> bool {
        e >= self.len() || self.rest.get(e).is_some_and(|r| r * (1.0 + SLACK) < score)
    }

    /// Whether the top `limit` of the candidates of `e` essential words,
    /// of which `found` were found and the last scores `kth`, is the
    /// collection's top `limit`.
    pub fn settled(&self, e: usize, found: usize, limit: usize, kth: Option<f64>) -> bool {
        if e >= self.len() {
            return true;
        }
        let bound = self.rest.get(e).copied().unwrap_or(0.0);
        found >= limit && kth.is_some_and(|kth| bound * (1.0 + SLACK) < kth)
    }
}

#[cfg(test)]
mod tests;
