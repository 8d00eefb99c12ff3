//! Reads of the collection statistics (`bm25_stats`) and of one term's
//! statistics and run bounds (`bm25_terms`) that a search starts from.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;

/// Collection statistics of one scope.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct ScopeStats {
    /// Documents (N).
    pub(crate) docs: f64,
    /// Mean own length over all documents (0 when there are none).
    pub(crate) avg_len: f64,
    /// Mean context length over the documents with a context field (0 when
    /// there are none).
    pub(crate) avg_context_len: f64,
}

/// Collection statistics of one scope.
///
/// # Errors
/// [`MemoryError::Storage`].
#[allow(clippy::cast_precision_loss)]
pub(crate) fn scope_stats(conn: &Connection, scope: i64) -> Result<ScopeStats> {
    let row: Option<(i64, i64, i64, i64)> = conn
        .prepare_cached(
            "SELECT docs, tokens, grouped, context_tokens FROM bm25_stats WHERE scope = ?1",
        )?
        .query_row([scope], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let (docs, tokens, grouped, context_tokens) = row.unwrap_or((0, 0, 0, 0));
    let mean = |total: i64, count: i64| {
        if count > 0 {
            total.max(0) as f64 / count as f64
        } else {
            0.0
        }
    };
    Ok(ScopeStats {
        docs: docs.max(0) as f64,
        avg_len: mean(tokens, docs),
        avg_context_len: mean(context_tokens, grouped),
    })
}

/// One term's statistics in a scope (see [`term_stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TermStats {
    /// Documents holding the term in either field.
    pub(crate) df: i64,
    /// Largest own tf (may be stale-high after deletions).
    pub(crate) max_tf: u32,
    /// Largest context tf (may be stale-high).
    pub(crate) max_ctf: u32,
    /// Smallest context length of a document holding the term in both
    /// fields (may be stale-low); 0 when there is none.
    pub(crate) min_clen: u32,
}

/// The statistics of `term` in `scope` (all 0 when absent).
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn term_stats(conn: &Connection, scope: i64, term: &str) -> Result<TermStats> {
    let row: Option<TermStats> = conn
        .prepare_cached(
            "SELECT df, max_tf, max_ctf, min_clen FROM bm25_terms WHERE scope = ?1 AND term = ?2",
        )?
        .query_row(params![scope, term], |r| {
            Ok(TermStats {
                df: r.get::<_, i64>(0)?.max(0),
                max_tf: r.get(1)?,
                max_ctf: r.get(2)?,
                min_clen: r.get::<_, Option<u32>>(3)?.unwrap_or(0),
            })
        })
        .optional()?;
    Ok(row.unwrap_or_default())
}
