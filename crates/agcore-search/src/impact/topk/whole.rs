//! Short terms read whole: a term's whole posting list read in one query,
//! its runs' blocks walked in memory and its postings held for exact
//! scores; longer terms are streamed run by run.
//!
//! A short list costs about one run's seek to read whole, while reading it
//! run by run takes one query per (tf bucket, context tf bucket) pair — up
//! to [`TF_BUCKETS`](crate::impact::TF_BUCKETS) · (`TF_BUCKETS` + 2) of
//! them, mostly tiny or empty on small collections. The runs are then
//! walked in memory in the same order as streamed, so results do not
//! change.

use std::collections::BTreeMap;

use super::super::scorer::{RunBounds, Scorer};
use super::exact::{FastHash, HeldPostings};
use super::run::{Block, BlockSource, Run};
use super::terms::{TermStats, run_codes};

/// Largest document frequency of a term read whole (four full blocks): a
/// longer list is streamed run by run, so an early stop reads little of it.
pub const PRELOAD_MAX: i64 = 2_048;

/// A term's blocks by run code (each run in key order) and its postings as
/// `doc → (run code, key length)`.
#[derive(Debug)]
pub struct WholeTerm {
    /// The blocks of each run, in key order.
    pub runs: BTreeMap<u32, Vec<Block>>,
    /// Every posting of the term.
    pub held: HeldPostings,
}

impl WholeTerm {
    /// No blocks yet, of a term held by `df` documents.
    #[must_use]
    pub fn new(df: i64) -> Self {
        let capacity = usize::try_from(df).unwrap_or(0);
        Self {
            runs: BTreeMap::new(),
            held: HeldPostings::with_capacity_and_hasher(capacity, FastHash::default()),
        }
    }

    /// Adds a block of run `code` (a run's blocks come in key order).
    #[inline]
    pub fn add(&mut self, code: u32, block: Block) {
        for &(len, doc) in &block.postings {
            self.held.insert(doc, (code, len));
        }
        self.runs.entry(code).or_default().push(block);
    }
}

/// Opens run `code` of present term `term` (its index among the present
/// terms, idf and statistics), reading blocks from `source`.
///
/// # Errors
/// What `source` returns.
pub fn open_run<S: BlockSource>(
    (term, idf, stats): (usize, f64, &TermStats),
    code: u32,
    source: S,
    scorer: &Scorer,
) -> Result<Run<S>, S::Error> {
    let bounds = RunBounds::new(code, stats.max_tf, stats.max_ctf, stats.min_clen);
    Run::new(term, idf, code, bounds, source, scorer)
}

/// The runs of a search's short terms, and what its long terms leave to
/// stream.
pub struct ShortTerms<S> {
    /// The runs of the terms read whole, term after term, in run code order.
    pub runs: Vec<Run<S>>,
    /// By present term: its postings when read whole.
    pub materialized: Vec<Option<HeldPostings>>,
    /// The `(present term, run code)` runs to stream, in order.
    pub streamed: Vec<(usize, u32)>,
}

/// Reads the `present` terms (text, idf, statistics) of at most
/// [`PRELOAD_MAX`] documents whole (`whole`, one read a term) and opens
/// their runs on the blocks read (`held`), holding their postings; lists
/// the runs of the longer terms to stream.
///
/// # Errors
/// The first error of `whole` or of opening a run.
pub fn open_short_terms<S: BlockSource>(
    present: &[(&str, f64, TermStats)],
    scorer: &Scorer,
    mut whole: impl FnMut(&str, i64) -> Result<WholeTerm, S::Error>,
    held: impl Fn(Vec<Block>) -> S,
) -> Result<ShortTerms<S>, S::Error> {
    let mut out = ShortTerms {
        runs: Vec::new(),
        materialized: vec![None; present.len()],
        streamed: Vec::new(),
    };
    for (t, &(text, idf, stats)) in present.iter().enumerate() {
        if stats.df > PRELOAD_MAX {
            out.streamed.extend(run_codes(&stats).map(|code| (t, code)));
            continue;
        }
        let mut term = whole(text, stats.df)?;
        for code in run_codes(&stats) {
            if let Some(blocks) = term.runs.remove(&code) {
                let run = open_run((t, idf, &stats), code, held(blocks), scorer)?;
                out.runs.push(run);
            }
        }
        if let Some(slot) = out.materialized.get_mut(t) {
            *slot = Some(term.held);
        }
    }
    Ok(out)
}
