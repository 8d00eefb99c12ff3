//! Comparing two rankings of the same memories computed by different
//! engines (a backend against the reference `InMemoryStore`, SQL against
//! Rust): the scores are the same sums taken in another order, so two hits
//! whose scores are mathematically equal may differ in the last bit and
//! swap places. Every backend's equivalence test compares with
//! [`same_ranking`], which treats such hits as tied.

use std::collections::HashMap;
use std::fmt::Debug;

/// The relative tolerance of [`same_score`].
pub const SCORE_TOLERANCE: f64 = 1e-9;

/// Whether `a` and `b` are one score up to floating-point rounding:
/// `|a − b| ≤ SCORE_TOLERANCE · max(|a|, |b|, 1)`.
pub fn same_score(a: f64, b: f64) -> bool {
    (a - b).abs() <= SCORE_TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

/// Checks that `got` ranks as `want` (each a list of `(id, score)`, best
/// first; ids as `&str`, `String` or anything else that is `AsRef<str>`):
/// - the same length, and the [`same_score`] at every position;
/// - the same ids in the same order, except within a run of consecutive
///   hits whose scores are the [`same_score`]: there the order may differ,
///   the ids may not (but in a run that ends the lists, which a top-k cut
///   may have split, only the scores are compared);
/// - every id found in both lists with the [`same_score`] in each.
///
/// # Errors
/// A message naming the first difference and both lists.
pub fn same_ranking<A, B>(got: &[(A, f64)], want: &[(B, f64)]) -> Result<(), String>
where
    A: AsRef<str> + Debug,
    B: AsRef<str> + Debug,
{
    let fail = |why: String| Err(format!("{why}: got {got:?}, want {want:?}"));
    if got.len() != want.len() {
        return fail(format!("{} hits instead of {}", got.len(), want.len()));
    }
    if let Some(i) = got
        .iter()
        .zip(want)
        .position(|(g, w)| !same_score(g.1, w.1))
    {
        return fail(format!("the score at position {} differs", i + 1));
    }
    let wanted: HashMap<&str, f64> = want.iter().map(|(id, s)| (id.as_ref(), *s)).collect();
    for (id, score) in got {
        let id = id.as_ref();
        if let Some(&w) = wanted.get(id)
            && !same_score(*score, w)
        {
            return fail(format!("`{id}` scores {score} instead of {w}"));
        }
    }
    // Runs of near-equal scores: each closed run holds the same ids; the
    // last one, which a cut may have split, is not compared.
    let (mut run_got, mut run_want): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    let (mut last, mut from) = (None, 1);
    for (pos, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(prev) = last
            && !same_score(w.1, prev)
        {
            run_got.sort_unstable();
            run_want.sort_unstable();
            if run_got != run_want {
                return fail(format!("positions {from} to {pos} hold other ids"));
            }
            run_got.clear();
            run_want.clear();
            from = pos + 1;
        }
        run_got.push(g.0.as_ref());
        run_want.push(w.0.as_ref());
        last = Some(w.1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_ties_may_swap_and_nothing_else_may() {
        let want = [("a", 3.0), ("b", 2.0), ("c", 2.0 + 1e-12), ("d", 1.0)];
        let swapped = [("a", 3.0), ("c", 2.0 + 1e-12), ("b", 2.0), ("d", 1.0)];
        assert!(same_ranking(&swapped, &want).is_ok());
        let reordered = [("b", 3.0), ("a", 2.0), ("c", 2.0), ("d", 1.0)];
        assert!(same_ranking(&reordered, &want).is_err());
        let other_id = [("a", 3.0), ("b", 2.0), ("e", 2.0), ("d", 1.0)];
        assert!(same_ranking(&other_id, &want).is_err());
        let other_score = [("a", 3.0), ("b", 2.0), ("c", 2.1), ("d", 1.0)];
        assert!(same_ranking(&other_score, &want).is_err());
        assert!(same_ranking(&want[..3], &want).is_err());
    }

    #[test]
    fn a_tie_at_the_cut_may_hold_other_ids() {
        let want = [("a", 3.0), ("b", 2.0), ("c", 2.0)];
        let got = [("a", 3.0), ("b", 2.0), ("z", 2.0)];
        assert!(same_ranking(&got, &want).is_ok());
        let swapped_head = [("b", 3.0), ("a", 2.0), ("c", 2.0)];
        assert!(same_ranking(&swapped_head, &want).is_err());
    }
}
