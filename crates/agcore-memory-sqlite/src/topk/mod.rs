//! Exact BM25 (long-term) and BM25F (store) top-k over the impact-ordered
//! index of [`super::impact`].
//!
//! Fagin's threshold algorithm (Fagin, Lotem & Naor 2003, "Optimal
//! aggregation algorithms for middleware", JCSS 66(4)) over impact-ordered
//! runs (Anh & Moffat 2006): each (term, run code) run is read shortest
//! key length first, so its next posting bounds the term's contribution to
//! every document not yet read there (the term's part grows with both
//! fields' frequencies and falls with both lengths, so a run's bound takes
//! its bucket's frequencies, its key length and, for postings holding the
//! term in both fields, the term's smallest context length; a document is
//! in one run per term); each newly seen document is scored
//! exactly, and the search stops once the sum of the terms' bounds falls
//! below the k-th score. Refinements:
//! - a term whose bound, added to the bounds of the weaker terms, stays below
//!   the k-th score is *non-essential* and never read in order (the MaxScore
//!   argument of Turtle & Flood 1995: a document holding only such terms
//!   cannot enter);
//! - a document whose exact part plus the other terms' bounds stays below the
//!   k-th score is dropped unscored;
//! - exact scores come from the other terms' postings once those are loaded
//!   in memory (a term is loaded when that is cheaper than the row lookups it
//!   replaces), else from the document's row; a row is read only for a
//!   document that can enter the results (for its filter and tie-break key);
//! - when the tie-break key is the document number, a band of equal scores
//!   stops being read as soon as every essential run's next posting comes
//!   after the k-th result's key (equal postings run by document number).

mod exact;
mod hit;
mod preload;
mod run;
mod scorer;

use crate::error::Result;
use std::collections::{BinaryHeap, HashSet};

use rusqlite::{CachedStatement, Connection, params};

use super::impact::{self, CONTEXT_STRIDE, TF_BUCKETS, TermStats, scope_stats};
use exact::{DocPosting, HeldPostings, QueryTerms, exact_score, from_postings};
pub(crate) use hit::{Fetched, Hit};
use preload::{PRELOAD_MAX, whole_term};
use run::{Blocks, Run};
pub(crate) use scorer::Ranking;
use scorer::{RunBounds, Scorer};

/// Relative slack on bounds: float rounding never prunes a document whose
/// exact score reaches the threshold, and scores this close count as ties.
const SLACK: f64 = 1e-9;

/// Hashing of document numbers (not attacker-chosen keys: internal row ids).
type FastHash = foldhash::fast::RandomState;

/// One top-k search of one scope.
pub(crate) struct TopKQuery<'a> {
    pub(crate) scope: i64,
    /// Distinct query terms, in query order (scores add their parts in this order).
    pub(crate) terms: &'a [String],
    pub(crate) limit: usize,
    pub(crate) min_score: Option<f64>,
    /// Leading tokens of a `terms` column that are not document terms.
    pub(crate) skip: usize,
    /// Whether the tie-break key orders like the document number (enables
    /// the early stop inside a band of equal scores).
    pub(crate) key_is_doc: bool,
    /// How terms are weighed.
    pub(crate) ranking: Ranking,
}

/// The exact top-`limit` of `query`, best first (score desc, key asc).
/// `fetch` reads a document by number; `None` drops it (filtered out).
///
/// # Errors
/// [`MemoryError::Storage`], or what `fetch` returns.
pub(crate) fn top_k<K: Ord>(
    conn: &Connection,
    query: &TopKQuery<'_>,
    fetch: &mut dyn FnMut(i64) -> Result<Option<Fetched<K>>>,
) -> Result<Vec<Hit<K>>> {
    let stats = scope_stats(conn, query.scope)?;
    let n = stats.docs;
    if n <= 0.0 || query.limit == 0 {
        return Ok(Vec::new());
    }
    let scorer = Scorer::new(query.ranking, &stats);
    // (term, idf) of every query term, in query order; idf 0 when absent.
    let mut idfs: Vec<(&str, f64)> = Vec::with_capacity(query.terms.len());
    let mut present: Vec<(&str, f64, TermStats)> = Vec::new();
    // Query term → index in `present`.
    let mut present_of: Vec<Option<usize>> = Vec::with_capacity(query.terms.len());
    for term in query.terms {
        let stats = impact::term_stats(conn, query.scope, term)?;
        #[allow(clippy::cast_precision_loss)]
        let weight = if stats.df > 0 {
            scorer.idf(n, stats.df as f64)
        } else {
            0.0
        };
        idfs.push((term, weight));
        present_of.push((stats.df > 0).then_some(present.len()));
        if stats.df > 0 {
            present.push((term, weight, stats));
        }
    }
    let mut materialized: Vec<Option<HeldPostings>> = vec![None; present.len()];
    let mut statements: Vec<CachedStatement<'_>> = Vec::new();
    let mut runs = Vec::new();
    // Short lists are read whole (one query a term); longer ones run by run.
    let mut plan: Vec<(usize, u32)> = Vec::new();
    for (t, &(text, idf, stats)) in present.iter().enumerate() {
        if stats.df > PRELOAD_MAX {
            plan.extend(run_codes(&stats).map(|code| (t, code)));
            continue;
        }
        let mut whole = whole_term(conn, query.scope, text, stats.df)?;
        for code in run_codes(&stats) {
            if let Some(blocks) = whole.runs.remove(&code) {
                let bounds = RunBounds::new(code, stats.max_tf, stats.max_ctf, stats.min_clen);
                let blocks = Blocks::Held(blocks.into_iter());
                runs.push(Run::new(t, idf, code, bounds, blocks, &scorer)?);
            }
        }
        if let Some(slot) = materialized.get_mut(t) {
            *slot = Some(whole.held);
        }
    }
    for _ in &plan {
        statements.push(conn.prepare_cached(
            "SELECT len, first_doc, postings FROM bm25_blocks \
             WHERE scope = ?1 AND term = ?2 AND tfb = ?3 ORDER BY len, first_doc",
        )?);
    }
    for (statement, &(t, code)) in statements.iter_mut().zip(&plan) {
        let Some(&(text, idf, stats)) = present.get(t) else {
            continue;
        };
        let rows = Blocks::Rows(statement.query(params![query.scope, text, code])?);
        let bounds = RunBounds::new(code, stats.max_tf, stats.max_ctf, stats.min_clen);
        runs.push(Run::new(t, idf, code, bounds, rows, &scorer)?);
    }
    // The runs in (term, code) order whichever way they were read: equal
    // candidates are picked in the same order.
    runs.sort_by_key(|r| (r.term, r.code));
    let floor = query.min_score.unwrap_or(0.0).max(0.0);
    let mut heap: BinaryHeap<Hit<K>> = BinaryHeap::with_capacity(query.limit + 1);
    let mut seen: HashSet<i64, FastHash> = HashSet::default();
    let mut term_bounds = vec![0.0f64; present.len()];
    let mut fetches = 0usize;
    // Buffers of the loop, reused at every posting read.
    let mut order: Vec<usize> = Vec::with_capacity(present.len());
    let mut essential = vec![false; present.len()];
    loop {
        let full = heap.len() >= query.limit;
        let worst = heap.peek().filter(|_| full);
        let theta = worst.map_or(floor, |w| w.score.max(floor));
        term_bounds.fill(0.0);
        for run in &runs {
            if let Some(b) = term_bounds.get_mut(run.term) {
                *b = b.max(run.bound);
            }
        }
        let total: f64 = term_bounds.iter().sum();
        if total == 0.0 || total * (1.0 + SLACK) < theta {
            break;
        }
        // Essential terms: drop the weakest while their bounds sum below theta.
        order.clear();
        order.extend(0..term_bounds.len());
        order.sort_by(|&a, &b| bound_at(&term_bounds, a).total_cmp(&bound_at(&term_bounds, b)));
        essential.fill(false);
        let mut weak = 0.0;
        for &t in &order {
            weak += bound_at(&term_bounds, t);
            if weak * (1.0 + SLACK) >= theta
                && let Some(e) = essential.get_mut(t)
            {
                *e = true;
            }
        }
        // A band of ties that can only lose: an unseen document reaching the
        // k-th score needs its terms' full bounds, and every essential run
        // that can still give one (its head) is past the k-th key.
        if query.key_is_doc
            && let Some(worst) = worst
            && total <= theta * (1.0 + SLACK)
            && runs.iter().all(|r| {
                let top = term_bounds.get(r.term).copied().unwrap_or(0.0);
                !essential.get(r.term).copied().unwrap_or(false)
                    || r.next.is_none_or(|(_, doc)| doc > worst.doc)
                    || r.bound < top * (1.0 - SLACK)
            })
        {
            break;
        }
        // Read the essential run with the largest bound (then the smallest next document).
        let pick = runs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.next.is_some() && essential.get(r.term).copied().unwrap_or(false))
            .max_by(|(_, a), (_, b)| {
                a.bound.total_cmp(&b.bound).then_with(|| {
                    let doc = |r: &Run<'_>| r.next.map_or(i64::MAX, |x| x.1);
                    doc(b).cmp(&doc(a))
                })
            })
            .map(|(i, _)| i);
        let Some(run) = pick.and_then(|i| runs.get_mut(i)) else {
            break;
        };
        let Some((len, doc)) = run.next else {
            break;
        };
        let term = run.term;
        let run_code = run.code;
        // The run's bound at this posting bounds the document's part.
        let part = run.bound;
        run.advance(&scorer)?;
        if !seen.insert(doc) {
            continue;
        }
        // What the document can still gain from the other terms.
        let rest: f64 = term_bounds
            .iter()
            .enumerate()
            .filter(|&(t, _)| t != term)
            .map(|(_, b)| b)
            .sum();
        if (part + rest) * (1.0 + SLACK) < theta {
            continue;
        }
        // The exact score from the postings alone when the other terms'
        // postings are (or can be) held in memory; random access otherwise.
        let doc_posting = DocPosting {
            doc,
            term,
            code: run_code,
            len,
        };
        let (known, upper) = from_postings(
            conn,
            query.scope,
            &QueryTerms {
                present: &present,
                present_of: &present_of,
                idfs: &idfs,
            },
            &mut materialized,
            &doc_posting,
            (&scorer, fetches),
        )?;
        // Its row is read only if it can enter.
        if known.is_none() && upper.is_some_and(|u| u * (1.0 + SLACK) < theta) {
            continue;
        }
        if let Some(score) = known {
            let passes =
                score > 0.0 && score.is_finite() && query.min_score.is_none_or(|min| score >= min);
            let outranked =
                heap.len() >= query.limit && heap.peek().is_some_and(|worst| score < worst.score);
            if !passes || outranked {
                continue;
            }
        }
        fetches += 1;
        let Some(found) = fetch(doc)? else {
            continue;
        };
        let score = match known {
            Some(score) => score,
            None => exact_score(
                &found.terms,
                found.context.as_deref(),
                query.skip,
                &idfs,
                &scorer,
            ),
        };
        let passes =
            score > 0.0 && score.is_finite() && query.min_score.is_none_or(|min| score >= min);
        if !passes {
            continue;
        }
        let hit = Hit {
            key: found.key,
            doc,
            score,
        };
        if heap.len() < query.limit {
            heap.push(hit);
        } else if heap.peek().is_some_and(|worst| hit < *worst) {
            heap.pop();
            heap.push(hit);
        }
    }
    Ok(heap.into_sorted_vec())
}

/// The run codes a term with these statistics may have postings in: own
/// tf buckets 1..=max without context, and every (tf, context tf) bucket
/// pair (tf bucket 0 included) up to the largest context tf.
fn run_codes(stats: &TermStats) -> impl Iterator<Item = u32> {
    let tf_max = stats.max_tf.min(TF_BUCKETS);
    let plain = 1..=stats.max_tf.clamp(1, TF_BUCKETS);
    let context = (1..=stats.max_ctf.min(TF_BUCKETS))
        .flat_map(move |ctf| (0..=tf_max).map(move |tf| tf + CONTEXT_STRIDE * ctf));
    plain.chain(context)
}

fn bound_at(bounds: &[f64], i: usize) -> f64 {
    bounds.get(i).copied().unwrap_or(0.0)
}
