//! The loop of one top-k search (see the module docs of [`super`]): pick
//! the essential run with the largest bound, read its next posting, score
//! the document if it can still enter, stop once no unread document can.

use std::collections::{BinaryHeap, HashSet};

use super::super::hit::Hit;
use super::super::scorer::Scorer;
use super::exact::{
    DocPosting, FastHash, HeldPostings, Load, QueryTerms, exact_score, from_postings,
};
use super::run::{BlockSource, Run};
use super::terms::{Fetch, SLACK, TopK};

/// What every step of a search reads and never changes.
pub(super) struct Context<'q, 'a> {
    pub(super) query: &'q TopK,
    pub(super) terms: QueryTerms<'q, 'a>,
    pub(super) scorer: &'q Scorer,
}

/// The state of one search: its runs, the best hits so far and the
/// buffers reused at every posting read.
pub(super) struct Search<S, K> {
    runs: Vec<Run<S>>,
    materialized: Vec<Option<HeldPostings>>,
    heap: BinaryHeap<Hit<K>>,
    seen: HashSet<i64, FastHash>,
    /// Per present term: the largest bound of its runs.
    term_bounds: Vec<f64>,
    /// The sum of `term_bounds`: what an unread document can score at most.
    total: f64,
    order: Vec<usize>,
    /// Per present term: whether it must be read in order (MaxScore).
    essential: Vec<bool>,
    /// Documents read by random access so far.
    fetches: usize,
    limit: usize,
    min_score: Option<f64>,
}

impl<S: BlockSource, K: Ord> Search<S, K> {
    /// A search over `runs` of `terms` present terms for the best `limit`
    /// documents scoring at least `min_score`.
    pub(super) fn new(
        runs: Vec<Run<S>>,
        materialized: Vec<Option<HeldPostings>>,
        limit: usize,
        min_score: Option<f64>,
    ) -> Self {
        let terms = materialized.len();
        Self {
            runs,
            materialized,
            heap: BinaryHeap::with_capacity(limit + 1),
            seen: HashSet::default(),
            term_bounds: vec![0.0; terms],
            total: 0.0,
            order: Vec::with_capacity(terms),
            essential: vec![false; terms],
            fetches: 0,
            limit,
            min_score,
        }
    }

    /// Runs the search to its end; the hits best first (score desc, key asc).
    ///
    /// # Errors
    /// What the runs' block source, `load` or `fetch` return.
    pub(super) fn run(
        mut self,
        ctx: &Context<'_, '_>,
        load: &mut Load<'_, S::Error>,
        fetch: &mut Fetch<'_, K, S::Error>,
    ) -> Result<Vec<Hit<K>>, S::Error> {
        loop {
            let (theta, worst_doc) = self.threshold();
            if !self.refresh(theta) {
                break;
            }
            if ctx.query.key_is_doc && worst_doc.is_some_and(|doc| self.ties_settled(theta, doc)) {
                break;
            }
            let Some((at, part)) = self.next_posting(ctx.scorer)? else {
                break;
            };
            if self.seen.insert(at.doc) && self.may_enter(&at, part, theta) {
                self.score(ctx, &at, theta, (load, fetch))?;
            }
        }
        Ok(self.heap.into_sorted_vec())
    }

    /// The score a document must reach (the k-th score once `limit` hits are
    /// held, else the floor) and the k-th hit's document.
    fn threshold(&self) -> (f64, Option<i64>) {
        let floor = self.min_score.unwrap_or(0.0).max(0.0);
        let worst = self.heap.peek().filter(|_| self.heap.len() >= self.limit);
        (
            worst.map_or(floor, |w| w.score.max(floor)),
            worst.map(|w| w.doc),
        )
    }

    /// Refreshes the terms' bounds and which are essential (drop the weakest
    /// while their bounds sum below `theta`); `false` once no unread
    /// document can reach `theta`.
    fn refresh(&mut self, theta: f64) -> bool {
        self.term_bounds.fill(0.0);
        for run in &self.runs {
            if let Some(b) = self.term_bounds.get_mut(run.term) {
                *b = b.max(run.bound);
            }
        }
        self.total = self.term_bounds.iter().sum();
        if self.total == 0.0 || self.total * (1.0 + SLACK) < theta {
            return false;
        }
        self.order.clear();
        self.order.extend(0..self.term_bounds.len());
        let bounds = &self.term_bounds;
        self.order
            .sort_by(|&a, &b| bound_at(bounds, a).total_cmp(&bound_at(bounds, b)));
        self.essential.fill(false);
        let mut weak = 0.0;
        for &t in &self.order {
            weak += bound_at(&self.term_bounds, t);
            if weak * (1.0 + SLACK) >= theta
                && let Some(e) = self.essential.get_mut(t)
            {
                *e = true;
            }
        }
        true
    }

    /// A band of ties that can only lose: an unseen document reaching the
    /// k-th score needs its terms' full bounds, and every essential run that
    /// can still give one (its head) is past the k-th document `worst_doc`.
    fn ties_settled(&self, theta: f64, worst_doc: i64) -> bool {
        self.total <= theta * (1.0 + SLACK)
            && self.runs.iter().all(|r| {
                let top = bound_at(&self.term_bounds, r.term);
                !self.is_essential(r.term)
                    || r.next.is_none_or(|(_, doc)| doc > worst_doc)
                    || r.bound < top * (1.0 - SLACK)
            })
    }

    /// Reads the next posting of the essential run with the largest bound
    /// (then the smallest next document), with the bound of its term's part
    /// there; `None` when no essential run has one.
    fn next_posting(&mut self, scorer: &Scorer) -> Result<Option<(DocPosting, f64)>, S::Error> {
        let pick = self
            .runs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.next.is_some() && self.is_essential(r.term))
            .max_by(|(_, a), (_, b)| {
                a.bound.total_cmp(&b.bound).then_with(|| {
                    let doc = |r: &Run<S>| r.next.map_or(i64::MAX, |x| x.1);
                    doc(b).cmp(&doc(a))
                })
            })
            .map(|(i, _)| i);
        let Some(run) = pick.and_then(|i| self.runs.get_mut(i)) else {
            return Ok(None);
        };
        let Some((len, doc)) = run.next else {
            return Ok(None);
        };
        let at = DocPosting {
            doc,
            term: run.term,
            code: run.code,
            len,
        };
        // The run's bound at this posting bounds the document's part.
        let part = run.bound;
        run.advance(scorer)?;
        Ok(Some((at, part)))
    }

    /// Whether the document of `at`, whose part there is at most `part`,
    /// can still reach `theta` with the other terms' bounds.
    fn may_enter(&self, at: &DocPosting, part: f64, theta: f64) -> bool {
        let rest: f64 = self
            .term_bounds
            .iter()
            .enumerate()
            .filter(|&(t, _)| t != at.term)
            .map(|(_, b)| b)
            .sum();
        (part + rest) * (1.0 + SLACK) >= theta
    }

    /// Scores the document of `at` exactly — from the postings alone when the
    /// other terms' postings are (or can be) held in memory, else from its
    /// row, read only if it can enter — and keeps it if it ranks.
    fn score(
        &mut self,
        ctx: &Context<'_, '_>,
        at: &DocPosting,
        theta: f64,
        (load, fetch): (&mut Load<'_, S::Error>, &mut Fetch<'_, K, S::Error>),
    ) -> Result<(), S::Error> {
        let (known, upper) = from_postings(
            load,
            &ctx.terms,
            &mut self.materialized,
            at,
            (ctx.scorer, self.fetches),
        )?;
        if known.is_none() && upper.is_some_and(|u| u * (1.0 + SLACK) < theta) {
            return Ok(());
        }
        if known.is_some_and(|score| !self.passes(score) || self.outranked(score)) {
            return Ok(());
        }
        self.fetches += 1;
        let Some(found) = fetch(at.doc)? else {
            return Ok(());
        };
        let score = known.unwrap_or_else(|| {
            let context = found.context.as_deref();
            exact_score(
                &found.terms,
                context,
                ctx.query.skip,
                ctx.terms.idfs,
                ctx.scorer,
            )
        });
        if self.passes(score) {
            self.offer(Hit {
                key: found.key,
                doc: at.doc,
                score,
            });
        }
        Ok(())
    }

    fn is_essential(&self, term: usize) -> bool {
        self.essential.get(term).copied().unwrap_or(false)
    }

    /// Whether `score` may be a result at all (positive, finite, at least
    /// the minimum).
    fn passes(&self, score: f64) -> bool {
        score > 0.0 && score.is_finite() && self.min_score.is_none_or(|min| score >= min)
    }

    /// Whether `score` is below the k-th of a full result list.
    fn outranked(&self, score: f64) -> bool {
        self.heap.len() >= self.limit && self.heap.peek().is_some_and(|w| score < w.score)
    }

    fn offer(&mut self, hit: Hit<K>) {
        if self.heap.len() < self.limit {
            self.heap.push(hit);
        } else if self.heap.peek().is_some_and(|worst| hit < *worst) {
            self.heap.pop();
            self.heap.push(hit);
        }
    }
}

fn bound_at(bounds: &[f64], i: usize) -> f64 {
    bounds.get(i).copied().unwrap_or(0.0)
}
