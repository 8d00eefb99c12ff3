//! How a top-k search weighs a term in a document: the ranking function of
//! the backend ([`Ranking`]) with the scope's collection statistics
//! ([`Scorer`]).

use super::layout::{ScopeStats, TF_BUCKETS, split_code};
use crate::{Bm25, Bm25F, fts5_tf_part};

/// The ranking function of a search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranking {
    /// FTS5 `bm25()` (k1 = 1.2, b = 0.75, idf `ln((N − df + 0.5)/(df +
    /// 0.5))` floored at 1e-6) over the own text: long-term memory.
    Fts5,
    /// BM25F over the own text and the context field with `bm25`'s k1 and b,
    /// the context weighted `weight`, and the non-negative idf
    /// [`Bm25::idf`]: the in-memory store's ranking, used by the
    /// store.
    Fields {
        /// k1 and b.
        bm25: Bm25,
        /// The context field's weight (0: none).
        weight: f64,
    },
}

/// A [`Ranking`] with one scope's statistics: idf and tf parts.
#[derive(Debug, Clone, Copy)]
pub struct Scorer {
    fts5: bool,
    fields: Bm25F,
}

impl Scorer {
    /// `ranking` with the statistics of the scope searched.
    #[must_use]
    pub fn new(ranking: Ranking, stats: &ScopeStats) -> Self {
        let (fts5, bm25, weight) = match ranking {
            Ranking::Fts5 => (true, Bm25::default(), 0.0),
            Ranking::Fields { bm25, weight } => (false, bm25, weight),
        };
        Self {
            fts5,
            fields: Bm25F {
                bm25,
                avg_len: stats.avg_len,
                avg_context_len: stats.avg_context_len,
                weight,
            },
        }
    }

    /// The idf of a term held by `df` of `n` documents.
    #[inline]
    #[must_use]
    pub fn idf(&self, n: f64, df: f64) -> f64 {
        if self.fts5 {
            Bm25::fts5_idf(n, df)
        } else {
            Bm25::idf(n, df)
        }
    }

    /// The term's weight (idf excluded) for `tf` occurrences in an own text
    /// of `len` terms and `ctf` in a context field of `clen` terms.
    #[inline]
    #[must_use]
    pub fn part(&self, tf: u32, len: u32, ctf: u32, clen: u32) -> f64 {
        if self.fts5 {
            fts5_tf_part(f64::from(tf), f64::from(len), self.fields.avg_len)
        } else {
            self.fields.tf_part(
                f64::from(tf),
                f64::from(len),
                f64::from(ctf),
                f64::from(clen),
            )
        }
    }

    /// The exact part of a posting of run `code` with key length `len`, when
    /// the posting alone gives it: both frequencies below the last bucket,
    /// and not both fields (the key then holds one of the two lengths only).
    #[inline]
    #[must_use]
    pub fn exact_part(&self, code: u32, len: u32) -> Option<f64> {
        let (tf, ctf) = split_code(code);
        if tf >= TF_BUCKETS || ctf >= TF_BUCKETS {
            return None;
        }
        match (tf, ctf) {
            (tf, 0) => Some(self.part(tf, len, 0, 0)),
            (0, ctf) => Some(self.part(0, 0, ctf, len)),
            _ => None,
        }
    }
}

/// What bounds the postings of one run (see [`super::run_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunBounds {
    /// Own tf of every posting (the term's largest for the last bucket).
    pub tf: u32,
    /// Context tf of every posting (the term's largest for the last bucket).
    pub ctf: u32,
    /// The smallest context length of a posting holding the term in both
    /// fields (their key is the own length).
    pub min_clen: u32,
}

impl RunBounds {
    /// The bounds of run `code` of a term whose largest own and context tf
    /// are `max_tf`, `max_ctf`, with smallest mixed context length `min_clen`.
    #[must_use]
    pub fn new(code: u32, max_tf: u32, max_ctf: u32, min_clen: u32) -> Self {
        let (tf, ctf) = split_code(code);
        let bound = |bucket: u32, max: u32| {
            if bucket < TF_BUCKETS {
                bucket
            } else {
                max.max(TF_BUCKETS)
            }
        };
        Self {
            tf: bound(tf, max_tf),
            ctf: bound(ctf, max_ctf),
            min_clen,
        }
    }

    /// An upper bound of the part (idf excluded) of any posting of the run
    /// whose key length is at least `len`: the part grows with both
    /// frequencies and falls with both lengths (Robertson & Zaragoza 2009).
    #[inline]
    #[must_use]
    pub fn part(&self, scorer: &Scorer, len: u32) -> f64 {
        match (self.tf, self.ctf) {
            (tf, 0) => scorer.part(tf, len, 0, 0),
            (0, ctf) => scorer.part(0, 0, ctf, len),
            (tf, ctf) => scorer.part(tf, len, ctf, self.min_clen),
        }
    }
}
