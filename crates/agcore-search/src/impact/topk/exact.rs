//! Exact document scores: from a term's postings held in memory, or from a
//! document's terms.

use std::collections::HashMap;

use super::super::scorer::{RunBounds, Scorer};
use super::terms::TermStats;

/// Reads every posting of a term (`term`, its document frequency) as
/// document → (run code, key length).
pub type Load<'a, E> = dyn FnMut(&str, i64) -> Result<HeldPostings, E> + 'a;

/// Hashing of document numbers (not attacker-chosen keys: internal row ids).
pub type FastHash = foldhash::fast::RandomState;

/// A term's postings held in memory: document → (run code, key length).
pub type HeldPostings = HashMap<i64, (u32, u32), FastHash>;

/// Most postings of one term loaded into memory to score documents without
/// random access (about 1.6 MB of postings).
const MATERIALIZE_MAX: i64 = 100_000;
/// Postings loaded per random access they replace: a term is loaded once the
/// random accesses so far times this reach its document frequency (reading
/// a packed posting costs far less than one row lookup).
const POSTINGS_PER_ACCESS: i64 = 64;

/// The postings of present term `p` as `doc → (run code, key length)`, loaded once
/// worthwhile (see [`POSTINGS_PER_ACCESS`]); `None` while it is not, or when
/// the term has too many postings to hold.
pub(super) fn held<'m, E>(
    load: &mut Load<'_, E>,
    present: &[(&str, f64, TermStats)],
    materialized: &'m mut [Option<HeldPostings>],
    p: usize,
    fetches: usize,
) -> Result<Option<&'m HeldPostings>, E> {
    let Some(&(term, _, TermStats { df, .. })) = present.get(p) else {
        return Ok(None);
    };
    let Some(slot) = materialized.get_mut(p) else {
        return Ok(None);
    };
    let worthwhile = df
        <= POSTINGS_PER_ACCESS
            .saturating_mul(i64::try_from(fetches).unwrap_or(i64::MAX).saturating_add(1));
    if slot.is_none() && df <= MATERIALIZE_MAX && worthwhile {
        *slot = Some(load(term, df)?);
    }
    Ok(slot.as_ref())
}

/// A posting just read: document, present term index, run code, key length.
pub(super) struct DocPosting {
    pub doc: i64,
    pub term: usize,
    pub code: u32,
    pub len: u32,
}

/// The query's terms as a top-k search holds them.
#[derive(Clone, Copy)]
pub(super) struct QueryTerms<'q, 'a> {
    /// The terms with postings: text, idf, statistics.
    pub present: &'q [(&'a str, f64, TermStats)],
    /// Index in `present` of each query term (`None`: no postings).
    pub present_of: &'q [Option<usize>],
    /// Every query term with its idf (0 when absent), in query order.
    pub idfs: &'q [(&'a str, f64)],
}

/// What the query terms' postings held in memory tell of a document's score
/// (`idfs` in query order, `present_of` mapping them into `present`): the
/// exact score when every part is exact, and an upper bound when every
/// term's posting is known (an inexact part is bounded by its run's bound at
/// the posting's key length, as the run's cursor bounded it). Terms are
/// loaded into memory as [`held`] decides.
///
/// # Errors
/// What `load` returns.
pub(super) fn from_postings<E>(
    load: &mut Load<'_, E>,
    terms: &QueryTerms<'_, '_>,
    materialized: &mut [Option<HeldPostings>],
    at: &DocPosting,
    (scorer, fetches): (&Scorer, usize),
) -> Result<(Option<f64>, Option<f64>), E> {
    let QueryTerms {
        present,
        present_of,
        idfs,
    } = *terms;
    let mut known = Some(0.0);
    let mut upper = Some(0.0);
    for (q, &(_, weight)) in idfs.iter().enumerate() {
        let Some(p) = present_of.get(q).copied().flatten() else {
            continue;
        };
        let posting = if p == at.term {
            Some((at.code, at.len))
        } else {
            let Some(map) = held(load, present, materialized, p, fetches)? else {
                return Ok((None, None));
            };
            map.get(&at.doc).copied()
        };
        let Some((code, len)) = posting else {
            continue;
        };
        // Otherwise the exact frequencies or lengths are only in the row.
        let part = scorer.exact_part(code, len);
        if part.is_none() {
            known = None;
        }
        let bound = match part {
            Some(exact) => exact,
            None => match present.get(p) {
                Some(&(_, _, stats)) => {
                    RunBounds::new(code, stats.max_tf, stats.max_ctf, stats.min_clen)
                        .part(scorer, len)
                }
                None => return Ok((None, None)),
            },
        };
        if let Some(score) = known.as_mut() {
            *score += weight * bound;
        }
        if let Some(upper) = upper.as_mut() {
            *upper += weight * bound;
        }
    }
    Ok((known, upper))
}

/// The score of a document from its `terms` column and context field,
/// adding the query terms' parts in query order (as FTS5's `bm25()` and
/// the in-memory store do). Only the query terms are counted (`idfs` holds
/// distinct terms), besides the fields' lengths.
pub(super) fn exact_score(
    terms: &str,
    context: Option<&str>,
    skip: usize,
    idfs: &[(&str, f64)],
    scorer: &Scorer,
) -> f64 {
    let mut tfs = vec![0u32; idfs.len()];
    let mut ctfs = vec![0u32; idfs.len()];
    let len = count_query_terms(terms, skip, idfs, &mut tfs);
    let clen = count_query_terms(context.unwrap_or(""), 0, idfs, &mut ctfs);
    let mut score = 0.0;
    for ((&(_, idf), &tf), &ctf) in idfs.iter().zip(&tfs).zip(&ctfs) {
        score += idf * scorer.part(tf, len, ctf, clen);
    }
    score
}

/// The length of a `terms` value past its first `skip` tokens (as
/// [`term_frequencies`](super::super::term_frequencies) counts it), adding
/// each query term's occurrences to `counts` (indexed as `idfs`).
fn count_query_terms(terms: &str, skip: usize, idfs: &[(&str, f64)], counts: &mut [u32]) -> u32 {
    let mut len = 0u32;
    for token in terms.split(' ').filter(|t| !t.is_empty()).skip(skip) {
        len = len.saturating_add(1);
        if let Some(c) = idfs
            .iter()
            .position(|&(term, _)| term == token)
            .and_then(|i| counts.get_mut(i))
        {
            *c = c.saturating_add(1);
        }
    }
    len
}
