//! Exact BM25 top-k over the impact-ordered index of [`super::impact`].
//!
//! Fagin's threshold algorithm (Fagin, Lotem & Naor 2003, "Optimal
//! aggregation algorithms for middleware", JCSS 66(4)) over impact-ordered
//! runs (Anh & Moffat 2006): each (term, tf bucket) run is read shortest
//! document first, so its next posting bounds the term's contribution to
//! every document not yet read there; each newly seen document is scored
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

use crate::error::Result;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};

use rusqlite::{CachedStatement, Connection, Rows, params};

use super::impact::{
    self, Posting, TF_BUCKETS, decode_postings, idf, scope_stats, term_frequencies, tf_part,
};

/// Relative slack on bounds: float rounding never prunes a document whose
/// exact score reaches the threshold, and scores this close count as ties.
const SLACK: f64 = 1e-9;

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
}

/// A document found by random access: its tie-break key (ascending wins)
/// and its `terms` column.
pub(crate) struct Fetched<K> {
    pub(crate) key: K,
    pub(crate) terms: String,
}

/// A result: tie-break key, document number, BM25 score.
#[derive(Debug)]
pub(crate) struct Hit<K> {
    pub(crate) key: K,
    pub(crate) doc: i64,
    pub(crate) score: f64,
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

/// A length range and its postings, as read from one block.
type RangeBlock = (u32, Vec<Posting>);
/// A term's postings held in memory: document → (tf bucket, length).
type HeldPostings = HashMap<i64, (u32, u32), FastHash>;
/// Hashing of document numbers (not attacker-chosen keys: internal row ids).
type FastHash = foldhash::fast::RandomState;

/// Sorted access to one (term, tf bucket) run: its blocks by length range,
/// the blocks of one range merged and sorted by (length, document).
struct Run<'s> {
    /// Index of the term among the query's terms with postings.
    term: usize,
    idf: f64,
    /// The tf of every posting of the run, `None` for the last bucket (`tf ≥ TF_BUCKETS`).
    tf: Option<u32>,
    /// The term's largest tf (bounds the last bucket).
    max_tf: u32,
    rows: Rows<'s>,
    /// A block read ahead (the first of the next length range).
    pending: Option<(u32, Vec<(u32, i64)>)>,
    /// The current range's postings `(len, doc)`, ascending; `pos` is past `next`.
    class: Vec<(u32, i64)>,
    pos: usize,
    /// Next unread posting `(len, doc)`.
    next: Option<(u32, i64)>,
    /// Bound of the term's part in any document after the cursor (0 when done).
    bound: f64,
}

impl Run<'_> {
    fn read_block(&mut self) -> Result<Option<RangeBlock>> {
        Ok(match self.rows.next()? {
            Some(row) => {
                let blob: Vec<u8> = row.get(1)?;
                Some((row.get(0)?, decode_postings(&blob)))
            }
            None => None,
        })
    }

    /// Loads the next length range's postings.
    fn fill(&mut self) -> Result<()> {
        self.class.clear();
        self.pos = 0;
        let first = match self.pending.take() {
            Some(block) => Some(block),
            None => self.read_block()?,
        };
        let Some((range, postings)) = first else {
            return Ok(());
        };
        self.class = postings;
        loop {
            match self.read_block()? {
                Some((r, postings)) if r == range => self.class.extend(postings),
                other => {
                    self.pending = other;
                    break;
                }
            }
        }
        self.class.sort_unstable();
        self.class.dedup();
        Ok(())
    }

    /// The term frequency bounding this run's postings.
    fn tf_bound(&self) -> u32 {
        self.tf.unwrap_or(self.max_tf.max(TF_BUCKETS))
    }

    fn advance(&mut self, avg_len: f64) -> Result<()> {
        if self.pos >= self.class.len() {
            self.fill()?;
        }
        self.next = self.class.get(self.pos).copied();
        self.pos = self.pos.saturating_add(1);
        self.bound = self.next.map_or(0.0, |(len, _)| {
            self.idf * tf_part(f64::from(self.tf_bound()), f64::from(len), avg_len)
        });
        Ok(())
    }
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
    let (n, avg_len) = scope_stats(conn, query.scope)?;
    if n <= 0.0 || query.limit == 0 {
        return Ok(Vec::new());
    }
    // (term, idf) of every query term, in query order; idf 0 when absent.
    let mut idfs: Vec<(&str, f64)> = Vec::with_capacity(query.terms.len());
    let mut present: Vec<(&str, f64, u32, i64)> = Vec::new();
    // Query term → index in `present`.
    let mut present_of: Vec<Option<usize>> = Vec::with_capacity(query.terms.len());
    for term in query.terms {
        let (df, max_tf) = impact::term_stats(conn, query.scope, term)?;
        #[allow(clippy::cast_precision_loss)]
        let weight = if df > 0 { idf(n, df as f64) } else { 0.0 };
        idfs.push((term, weight));
        present_of.push((df > 0).then_some(present.len()));
        if df > 0 {
            present.push((term, weight, max_tf, df));
        }
    }
    let mut plan: Vec<(usize, u32)> = Vec::new();
    for (t, &(_, _, max_tf, _)) in present.iter().enumerate() {
        for bucket in 1..=max_tf.clamp(1, TF_BUCKETS) {
            plan.push((t, bucket));
        }
    }
    let mut statements: Vec<CachedStatement<'_>> = Vec::with_capacity(plan.len());
    for _ in &plan {
        statements.push(conn.prepare_cached(
            "SELECT lenb, postings FROM bm25_blocks \
             WHERE scope = ?1 AND term = ?2 AND tfb = ?3 ORDER BY lenb, first_doc",
        )?);
    }
    let mut runs = Vec::with_capacity(plan.len());
    for (statement, &(t, bucket)) in statements.iter_mut().zip(&plan) {
        let Some(&(text, idf, max_tf, _)) = present.get(t) else {
            continue;
        };
        let mut run = Run {
            term: t,
            idf,
            tf: (bucket < TF_BUCKETS).then_some(bucket),
            max_tf,
            rows: statement.query(params![query.scope, text, bucket])?,
            pending: None,
            class: Vec::new(),
            pos: 0,
            next: None,
            bound: 0.0,
        };
        run.advance(avg_len)?;
        runs.push(run);
    }
    let floor = query.min_score.unwrap_or(0.0).max(0.0);
    let mut heap: BinaryHeap<Hit<K>> = BinaryHeap::with_capacity(query.limit + 1);
    let mut seen: HashSet<i64, FastHash> = HashSet::default();
    let mut term_bounds = vec![0.0f64; present.len()];
    let mut materialized: Vec<Option<HeldPostings>> = vec![None; present.len()];
    let mut fetches = 0usize;
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
        let mut order: Vec<usize> = (0..term_bounds.len()).collect();
        order.sort_by(|&a, &b| bound_at(&term_bounds, a).total_cmp(&bound_at(&term_bounds, b)));
        let mut essential = vec![false; term_bounds.len()];
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
        let run_tfb = run.tf.unwrap_or(TF_BUCKETS);
        let part = run.idf * tf_part(f64::from(run.tf_bound()), f64::from(len), avg_len);
        run.advance(avg_len)?;
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
        let mut known = Some(0.0);
        for (q, &(_, weight)) in idfs.iter().enumerate() {
            let Some(p) = present_of.get(q).copied().flatten() else {
                continue;
            };
            let posting = if p == term {
                Some((run_tfb, len))
            } else {
                let Some(map) = held(conn, query.scope, &present, &mut materialized, p, fetches)?
                else {
                    known = None;
                    break;
                };
                map.get(&doc).copied()
            };
            let Some((tfb, len)) = posting else {
                continue;
            };
            if tfb >= TF_BUCKETS {
                known = None; // the exact tf is only in the row
                break;
            }
            if let Some(score) = known.as_mut() {
                *score += weight * tf_part(f64::from(tfb), f64::from(len), avg_len);
            }
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
            None => exact_score(&found.terms, query.skip, &idfs, avg_len),
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

/// Most postings of one term loaded into memory to score documents without
/// random access (about 1.6 MB of postings).
const MATERIALIZE_MAX: i64 = 100_000;
/// Postings loaded per random access they replace: a term is loaded once the
/// random accesses so far times this reach its document frequency (reading
/// a packed posting costs far less than one row lookup).
const POSTINGS_PER_ACCESS: i64 = 64;

/// The postings of present term `p` as `doc → (tf bucket, len)`, loaded once
/// worthwhile (see [`POSTINGS_PER_ACCESS`]); `None` while it is not, or when
/// the term has too many postings to hold.
fn held<'m>(
    conn: &Connection,
    scope: i64,
    present: &[(&str, f64, u32, i64)],
    materialized: &'m mut [Option<HeldPostings>],
    p: usize,
    fetches: usize,
) -> Result<Option<&'m HeldPostings>> {
    let Some(&(term, _, _, df)) = present.get(p) else {
        return Ok(None);
    };
    let Some(slot) = materialized.get_mut(p) else {
        return Ok(None);
    };
    let worthwhile = df
        <= POSTINGS_PER_ACCESS
            .saturating_mul(i64::try_from(fetches).unwrap_or(i64::MAX).saturating_add(1));
    if slot.is_none() && df <= MATERIALIZE_MAX && worthwhile {
        let mut map = HashMap::with_capacity_and_hasher(
            usize::try_from(df).unwrap_or(0),
            FastHash::default(),
        );
        let mut stmt = conn.prepare_cached(
            "SELECT tfb, postings FROM bm25_blocks WHERE scope = ?1 AND term = ?2",
        )?;
        let mut rows = stmt.query(params![scope, term])?;
        while let Some(row) = rows.next()? {
            let tfb: u32 = row.get(0)?;
            let blob: Vec<u8> = row.get(1)?;
            for (len, doc) in decode_postings(&blob) {
                map.insert(doc, (tfb, len));
            }
        }
        *slot = Some(map);
    }
    Ok(slot.as_ref())
}

fn bound_at(bounds: &[f64], i: usize) -> f64 {
    bounds.get(i).copied().unwrap_or(0.0)
}

/// BM25 of a document from its `terms` column, adding the query terms'
/// parts in query order as FTS5's `bm25()` does.
fn exact_score(terms: &str, skip: usize, idfs: &[(&str, f64)], avg_len: f64) -> f64 {
    let (len, tfs) = term_frequencies(terms, skip);
    let mut score = 0.0;
    for &(term, idf) in idfs {
        let tf = tfs
            .iter()
            .find(|(t, _)| *t == term)
            .map_or(0, |(_, tf)| *tf);
        score += idf * tf_part(f64::from(tf), f64::from(len), avg_len);
    }
    score
}
