//! What a top-k search starts from: the query's terms weighed with their
//! statistics ([`WeighedTerms`], [`TermStats`]), what it asks for
//! ([`TopK`]), the runs a term may have ([`run_codes`]) and how it reads a
//! document ([`Fetch`]).

use super::super::hit::Fetched;
use super::super::layout::{CONTEXT_STRIDE, TF_BUCKETS};
use super::super::scorer::Scorer;

/// Reads a document by number for its tie-break key and terms (`None`:
/// filtered out).
pub type Fetch<'a, K, E> = dyn FnMut(i64) -> Result<Option<Fetched<K>>, E> + 'a;

/// Relative slack on bounds: float rounding never prunes a document whose
/// exact score reaches the threshold, and scores this close count as ties.
pub(super) const SLACK: f64 = 1e-9;

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
