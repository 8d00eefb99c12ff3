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
mod search;

use crate::error::Result;

use rusqlite::{CachedStatement, Connection, params};

use super::impact::{self, CONTEXT_STRIDE, TF_BUCKETS, TermStats, scope_stats};
use exact::{HeldPostings, QueryTerms};
pub(crate) use hit::{Fetched, Hit};
use preload::{PRELOAD_MAX, whole_term};
use run::{Blocks, Run};
pub(crate) use scorer::Ranking;
use scorer::{RunBounds, Scorer};
use search::{Context, Search};

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
    if stats.docs <= 0.0 || query.limit == 0 {
        return Ok(Vec::new());
    }
    let scorer = Scorer::new(query.ranking, &stats);
    let weighed = WeighedTerms::read(conn, query, &scorer, stats.docs)?;
    let mut statements = Vec::new();
    let (runs, materialized) = open_runs(
        conn,
        query.scope,
        &weighed.present,
        &scorer,
        &mut statements,
    )?;
    let ctx = Context {
        conn,
        query,
        terms: QueryTerms {
            present: &weighed.present,
            present_of: &weighed.present_of,
            idfs: &weighed.idfs,
        },
        scorer: &scorer,
    };
    Search::new(runs, materialized, query.limit, query.min_score).run(&ctx, fetch)
}

/// The query's terms with their weights and statistics.
struct WeighedTerms<'a> {
    /// Every query term with its idf (0 when absent), in query order.
    idfs: Vec<(&'a str, f64)>,
    /// The terms with postings: text, idf, statistics.
    present: Vec<(&'a str, f64, TermStats)>,
    /// Index in `present` of each query term (`None`: no postings).
    present_of: Vec<Option<usize>>,
}

impl<'a> WeighedTerms<'a> {
    /// Reads each term's statistics in `query`'s scope of `docs` documents.
    fn read(conn: &Connection, query: &TopKQuery<'a>, scorer: &Scorer, docs: f64) -> Result<Self> {
        let count = query.terms.len();
        let mut out = Self {
            idfs: Vec::with_capacity(count),
            present: Vec::new(),
            present_of: Vec::with_capacity(count),
        };
        for term in query.terms {
            let stats = impact::term_stats(conn, query.scope, term)?;
            #[allow(clippy::cast_precision_loss)]
            let weight = if stats.df > 0 {
                scorer.idf(docs, stats.df as f64)
            } else {
                0.0
            };
            out.idfs.push((term, weight));
            out.present_of
                .push((stats.df > 0).then_some(out.present.len()));
            if stats.df > 0 {
                out.present.push((term, weight, stats));
            }
        }
        Ok(out)
    }
}

/// Every run of the `present` terms, in (term, code) order whichever way it
/// is read — short lists whole (one query a term, their postings also held
/// for exact scores), longer ones run by run through `statements` — so
/// equal candidates are picked in the same order.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError) when the index cannot be read.
fn open_runs<'c, 's>(
    conn: &'c Connection,
    scope: i64,
    present: &[(&str, f64, TermStats)],
    scorer: &Scorer,
    statements: &'s mut Vec<CachedStatement<'c>>,
) -> Result<(Vec<Run<'s>>, Vec<Option<HeldPostings>>)> {
    let mut materialized: Vec<Option<HeldPostings>> = vec![None; present.len()];
    let mut runs = Vec::new();
    let mut plan: Vec<(usize, u32)> = Vec::new();
    for (t, &(text, idf, stats)) in present.iter().enumerate() {
        if stats.df > PRELOAD_MAX {
            plan.extend(run_codes(&stats).map(|code| (t, code)));
            continue;
        }
        let mut whole = whole_term(conn, scope, text, stats.df)?;
        for code in run_codes(&stats) {
            if let Some(blocks) = whole.runs.remove(&code) {
                let bounds = RunBounds::new(code, stats.max_tf, stats.max_ctf, stats.min_clen);
                let blocks = Blocks::Held(blocks.into_iter());
                runs.push(Run::new(t, idf, code, bounds, blocks, scorer)?);
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
        let rows = Blocks::Rows(statement.query(params![scope, text, code])?);
        let bounds = RunBounds::new(code, stats.max_tf, stats.max_ctf, stats.min_clen);
        runs.push(Run::new(t, idf, code, bounds, rows, scorer)?);
    }
    runs.sort_by_key(|r| (r.term, r.code));
    Ok((runs, materialized))
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
