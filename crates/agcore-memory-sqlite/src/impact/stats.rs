//! Reads of the collection statistics (`bm25_stats`) and of one term's
//! statistics and run bounds (`bm25_terms`) that a search starts from.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use agcore_search::impact::{ScopeStats, TermStats};

/// Collection statistics of one scope.
///
/// # Errors
/// [`MemoryError::Storage`].
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
    Ok(ScopeStats::from_counts(
        docs,
        tokens,
        grouped,
        context_tokens,
    ))
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
