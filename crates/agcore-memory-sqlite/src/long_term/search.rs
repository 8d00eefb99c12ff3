//! Scoped BM25 search: the exact top-k by the threshold algorithm over the
//! scope's impact-ordered postings (`crate::topk`), and the
//! exhaustive scan of the scope it is checked and measured against.
//!
//! Scores are BM25 with FTS5 `bm25()`'s formula (k1 = 1.2, b = 0.75, idf
//! `ln((N − df + 0.5)/(df + 0.5))`, at least 1e-6) over the scope's own
//! collection: N, document frequencies and mean length count only the
//! scope's entries (archived ones included), so other users' memories never
//! influence a ranking.

use crate::error::Result;
#[cfg(feature = "testkit")]
use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::ops::archived_sql;
use super::rows::{self, ENTRY_COLUMNS, SCOPE_TOKENS, entry_from_row};
#[cfg(feature = "testkit")]
use crate::impact::{idf, term_frequencies, tf_part};
use crate::topk::{Fetched, Hit, TopKQuery, top_k};
use agcore_memory::long_term::MemoryScope;
use agcore_memory::long_term::{ScoredEntry, SearchRequest};
use agcore_memory::retriever::unique_index_terms;

/// Most distinct query keywords used (the first ones in query order).
const MAX_QUERY_TERMS: usize = 256;

fn query_terms(query: &str) -> Vec<String> {
    let mut terms = unique_index_terms(query);
    terms.truncate(MAX_QUERY_TERMS);
    terms
}

/// The best `request.limit` entries of `scope` for `query`, best first (ties
/// by id), passing the type and archive filters.
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn search(
    conn: &Connection,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let terms = query_terms(query);
    if terms.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let ty = request.memory_type.map(|t| t.as_str());
    let mut by_id = conn.prepare_cached(&format!(
        "SELECT m.id, m.terms FROM memory m WHERE m.id = ?1 AND m.agent_name = ?2 \
         AND m.user_id = ?3 AND (?4 IS NULL OR m.type = ?4) AND {}",
        archived_sql(request.archived)
    ))?;
    let mut fetch = |id: i64| -> Result<Option<Fetched<i64>>> {
        let mut rows = by_id.query(params![id, scope.agent, scope.user, ty])?;
        Ok(match rows.next()? {
            Some(row) => Some(Fetched {
                key: row.get(0)?,
                terms: row.get(1)?,
            }),
            None => None,
        })
    };
    let top = TopKQuery {
        scope: rows::scope_id(&scope.agent, &scope.user),
        terms: &terms,
        limit: request.limit,
        min_score: None,
        skip: SCOPE_TOKENS,
        // Ties go by id, which is the document number.
        key_is_doc: true,
    };
    let hits = top_k(conn, &top, &mut fetch)?;
    load(conn, hits)
}

/// BM25 over every entry of `scope` (a scan, no index): the reference the
/// pruned [`search`] equals, with statistics counted from the rows.
///
/// # Errors
/// [`MemoryError::Storage`].
#[allow(clippy::cast_precision_loss)]
#[cfg(feature = "testkit")]
pub(crate) fn exhaustive(
    conn: &Connection,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let terms = query_terms(query);
    if terms.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let ty = request.memory_type.map(|t| t.as_str());
    let wanted = format!(
        "(?3 IS NULL OR m.type = ?3) AND {}",
        archived_sql(request.archived)
    );
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.id, m.terms, {wanted} FROM memory m WHERE m.agent_name = ?1 AND m.user_id = ?2"
    ))?;
    let docs: Vec<(i64, String, bool)> = stmt
        .query_map(params![scope.agent, scope.user, ty], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    let counted: Vec<(u32, HashMap<&str, u32>)> = docs
        .iter()
        .map(|(_, t, _)| {
            let (len, tfs) = term_frequencies(t, SCOPE_TOKENS);
            (len, tfs.into_iter().collect())
        })
        .collect();
    let n = docs.len() as f64;
    let avg_len = counted.iter().map(|(l, _)| f64::from(*l)).sum::<f64>() / n.max(1.0);
    let idfs: Vec<(&str, f64)> = terms
        .iter()
        .map(|t| {
            let df = counted
                .iter()
                .filter(|(_, m)| m.contains_key(t.as_str()))
                .count();
            (t.as_str(), if df > 0 { idf(n, df as f64) } else { 0.0 })
        })
        .collect();
    let mut hits: Vec<Hit<i64>> = Vec::new();
    for ((id, _, wanted), (len, tfs)) in docs.iter().zip(&counted) {
        let mut score = 0.0;
        for &(term, idf) in &idfs {
            let tf = tfs.get(term).copied().unwrap_or(0);
            score += idf * tf_part(f64::from(tf), f64::from(*len), avg_len);
        }
        if *wanted && score > 0.0 && score.is_finite() {
            hits.push(Hit {
                key: *id,
                doc: *id,
                score,
            });
        }
    }
    hits.sort();
    hits.truncate(request.limit);
    load(conn, hits)
}

/// The entries of `hits`, in order, with their scores.
fn load(conn: &Connection, hits: Vec<Hit<i64>>) -> Result<Vec<ScoredEntry>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ENTRY_COLUMNS} FROM memory m WHERE m.id = ?1"
    ))?;
    let mut out = Vec::with_capacity(hits.len());
    for hit in hits {
        let mut rows = stmt.query([hit.doc])?;
        if let Some(row) = rows.next()? {
            out.push(ScoredEntry {
                entry: entry_from_row(row)?,
                score: hit.score,
            });
        }
    }
    Ok(out)
}
