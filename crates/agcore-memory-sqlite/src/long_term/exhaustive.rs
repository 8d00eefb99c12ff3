//! The exhaustive BM25 scan of one scope (statistics counted from the rows,
//! no index): the reference the pruned [`super::search`] is checked and
//! measured against. Compiled with the `testkit` feature only.

use std::collections::HashMap;

use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use rusqlite::{Connection, params};

use super::reads::archived_sql;
use super::rows::SCOPE_TOKENS;
use super::search::{load, query_terms};
use crate::error::Result;
use crate::impact::{idf, term_frequencies, tf_part};
use crate::topk::Hit;

/// BM25 over every entry of `scope` (a scan, no index): the reference the
/// pruned [`super::search::search`] equals, with statistics counted from the rows.
///
/// # Errors
/// [`MemoryError::Storage`].
#[allow(clippy::cast_precision_loss)]
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
        .query_map(params![scope.agent(), scope.user(), ty], |r| {
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
