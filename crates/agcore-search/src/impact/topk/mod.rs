//! Exact BM25 and BM25F top-k over an impact-ordered index, whatever
//! stores it: the storage reads blocks ([`BlockSource`]), term statistics,
//! held postings and documents; this module decides what to read and when
//! to stop.
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
mod run;
mod search;

pub use exact::{FastHash, HeldPostings, Load};

/// Reads a document by number for its tie-break key and terms (`None`:
/// filtered out).
pub type Fetch<'a, K, E> = dyn FnMut(i64) -> Result<Option<Fetched<K>>, E> + 'a;
pub use run::{Block, BlockSource, HeldBlocks, Run};

use super::{CONTEXT_STRIDE, Fetched, Hit, Scorer, TF_BUCKETS};
use exact::QueryTerms;
use search::{Context, Search};

/// Relative slack on bounds: float rounding never prunes a document whose
/// exact score reaches the threshold, and scores this close count as ties.
const SLACK: f64 = 1e-9;

/// One term's statistics in a scope, as the index keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TermStats {
    /// Documents holding the term in either field.
    pub df: i64,
    /// Largest own tf (may be stale-high after deletions).
    pub max_tf: u32,
    /// Largest context tf (may be stale-high).
    pub max_ctf: u32,
    /// Smallest context length of a document holding the term in both
    /// fields (may be stale-low); 0 when there is none.
    pub min_clen: u32,
}

/// What a top-k search asks for, besides its terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopK {
    /// Results wanted (`k`).
    pub limit: usize,
    /// Results must score at least this.
    pub min_score: Option<f64>,
    /// Leading tokens of a document's terms that are not document terms
    /// (a scope marker, say).
    pub skip: usize,
    /// Whether the tie-break key orders like the document number (enables
    /// the early stop inside a band of equal scores).
    pub key_is_doc: bool,
}

/// The query's terms with their weights and statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct WeighedTerms<'a> {
    /// Every query term with its idf (0 when absent), in query order.
    pub idfs: Vec<(&'a str, f64)>,
    /// The terms with postings: text, idf, statistics.
    pub present: Vec<(&'a str, f64, TermStats)>,
    /// Index in `present` of each query term (`None`: no postings).
    pub present_of: Vec<Option<usize>>,
}

impl<'a> WeighedTerms<'a> {
    /// Weighs distinct query `terms` (in query order) in a scope of `docs`
    /// documents, reading each term's statistics with `stats`.
    ///
    /// # Errors
    /// What `stats` returns.
    pub fn read<E>(
        terms: &'a [String],
        scorer: &Scorer,
        docs: f64,
        mut stats: impl FnMut(&str) -> Result<TermStats, E>,
    ) -> Result<Self, E> {
        let mut out = Self {
            idfs: Vec::with_capacity(terms.len()),
            present: Vec::new(),
            present_of: Vec::with_capacity(terms.len()),
        };
        for term in terms {
            let term_stats = stats(term)?;
            #[allow(clippy::cast_precision_loss)]
            let weight = if term_stats.df > 0 {
                scorer.idf(docs, term_stats.df as f64)
            } else {
                0.0
            };
            out.idfs.push((term, weight));
            out.present_of
                .push((term_stats.df > 0).then_some(out.present.len()));
            if term_stats.df > 0 {
                out.present.push((term, weight, term_stats));
            }
        }
        Ok(out)
    }
}

/// The run codes a term with these statistics may have postings in: own
/// tf buckets 1..=max without context, and every (tf, context tf) bucket
/// pair (tf bucket 0 included) up to the largest context tf.
pub fn run_codes(stats: &TermStats) -> impl Iterator<Item = u32> + use<> {
    let tf_max = stats.max_tf.min(TF_BUCKETS);
    let plain = 1..=stats.max_tf.clamp(1, TF_BUCKETS);
    let context = (1..=stats.max_ctf.min(TF_BUCKETS))
        .flat_map(move |ctf| (0..=tf_max).map(move |tf| tf + CONTEXT_STRIDE * ctf));
    plain.chain(context)
}

/// The exact top-`limit` of `query`, best first (score desc, key asc), over
/// `runs` — every run of the `present` terms of `terms`, whichever way each
/// is read — with `materialized[t]` the postings of present term `t` when
/// they were read whole. `load` reads a term's postings when holding them
/// pays; `fetch` reads a document by number (`None` drops it: filtered out).
///
/// # Errors
/// What the block sources, `load` or `fetch` return.
pub fn top_k<S: BlockSource, K: Ord>(
    query: &TopK,
    (terms, scorer): (&WeighedTerms<'_>, &Scorer),
    mut runs: Vec<Run<S>>,
    materialized: Vec<Option<HeldPostings>>,
    load: &mut Load<'_, S::Error>,
    fetch: &mut Fetch<'_, K, S::Error>,
) -> Result<Vec<Hit<K>>, S::Error> {
    runs.sort_by_key(|r| (r.term, r.code));
    let ctx = Context {
        query,
        terms: QueryTerms {
            present: &terms.present,
            present_of: &terms.present_of,
            idfs: &terms.idfs,
        },
        scorer,
    };
    Search::new(runs, materialized, query.limit, query.min_score).run(&ctx, load, fetch)
}
