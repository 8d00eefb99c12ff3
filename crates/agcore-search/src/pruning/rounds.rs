//! [`Rounds`]: a top-k search run round by round on a [`MaxScorePlan`].

use super::MaxScorePlan;

/// The rounds of one top-`limit` search on a [`MaxScorePlan`]: each round
/// reads the candidates of its essential terms ([`Self::matched`]) and
/// scores them exactly with every term; [`Self::settled`] then tells
/// whether the round's results are the collection's top `limit`, or
/// chooses the next round's essential terms ([`MaxScorePlan::after`]: a
/// third round is exhaustive).
///
/// # Examples
/// ```
/// use agcore_search::pruning::{MaxScorePlan, Rounds};
/// let plan = MaxScorePlan::new(&[1.0, 9.0, 4.0], &[70_000.0, 100.0, 5_000.0], 1_000);
/// let mut rounds = Rounds::new(&plan, 10);
/// assert_eq!(rounds.matched(&["a", "b", "c"]), ["b"]);
/// // 10 results, the 10th scoring 6.0 > the other terms' bounds 1.0 + 4.0.
/// assert!(rounds.settled(10, Some(6.0), None));
/// ```
#[derive(Debug, Clone)]
pub struct Rounds<'a> {
    plan: &'a MaxScorePlan,
    limit: usize,
    essential: usize,
    done: usize,
}

impl<'a> Rounds<'a> {
    /// The first round of a search of `plan` for `limit` results: the
    /// fewest essential terms that can settle it ([`MaxScorePlan::next`]).
    pub fn new(plan: &'a MaxScorePlan, limit: usize) -> Self {
        Self {
            plan,
            limit,
            essential: plan.next(0),
            done: 0,
        }
    }

    /// The number of essential terms of this round (the first of the
    /// plan's order).
    pub fn essential(&self) -> usize {
        self.essential
    }

    /// This round's essential terms, in query order, out of `terms` (the
    /// plan's terms, in query order).
    pub fn matched<T: Clone>(&self, terms: &[T]) -> Vec<T> {
        (self.plan.essential(self.essential).into_iter())
            .filter_map(|i| terms.get(i).cloned())
            .collect()
    }

    /// Whether this round, which found `found` results (at most the
    /// limit), the last scoring `kth`, settled the search: they are the
    /// collection's top results ([`MaxScorePlan::settled`]), or, with a
    /// minimum score `min_score`, fewer than the limit reach it and no
    /// document outside the candidates can ([`MaxScorePlan::below`]). When
    /// not, the next round's essential terms are chosen.
    pub fn settled(&mut self, found: usize, kth: Option<f64>, min_score: Option<f64>) -> bool {
        self.done += 1;
        let (plan, e) = (self.plan, self.essential);
        let settled = plan.settled(e, found, self.limit, kth)
            || min_score.is_some_and(|min| found < self.limit && plan.below(e, min));
        if !settled {
            self.essential = plan.after(e, found, self.limit, kth, self.done);
        }
        settled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_follow_the_plan_to_the_exhaustive_one() {
        let plan = MaxScorePlan::new(&[1.0, 9.0, 4.0], &[70_000.0, 100.0, 5_000.0], 1_000);
        let mut rounds = Rounds::new(&plan, 10);
        assert_eq!(rounds.essential(), plan.next(0));
        // Too few found: the next round takes more terms, as `after` says.
        assert!(!rounds.settled(3, Some(8.0), None));
        assert_eq!(rounds.essential(), plan.after(1, 3, 10, Some(8.0), 1));
        // A third round is exhaustive and settles whatever it finds.
        assert!(!rounds.settled(3, Some(8.0), None));
        assert_eq!(rounds.essential(), plan.len());
        assert_eq!(rounds.matched(&["a", "b", "c"]), ["a", "b", "c"]);
        assert!(rounds.settled(3, Some(0.5), None));
    }

    #[test]
    fn a_minimum_score_no_outsider_reaches_settles() {
        let plan = MaxScorePlan::new(&[1.0, 9.0, 4.0], &[70_000.0, 100.0, 5_000.0], 1_000);
        let mut rounds = Rounds::new(&plan, 10);
        // 3 of 10 found, but no document outside scores 6.0 or more.
        assert!(!rounds.clone().settled(3, Some(7.0), None));
        assert!(rounds.settled(3, Some(7.0), Some(6.0)));
    }
}
