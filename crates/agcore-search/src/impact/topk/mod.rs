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
mod terms;
mod whole;

pub use exact::{FastHash, HeldPostings, Load};

pub use run::{Block, BlockSource, HeldBlocks, Run};
pub use terms::{Fetch, TermStats, TopK, WeighedTerms, run_codes};
pub use whole::{PRELOAD_MAX, ShortTerms, WholeTerm, open_run, open_short_terms};

use super::hit::Hit;
use super::scorer::Scorer;
use exact::QueryTerms;
use search::{Context, Search};

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
