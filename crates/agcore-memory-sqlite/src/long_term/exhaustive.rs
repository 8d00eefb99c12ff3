//! The exhaustive BM25 scan of one scope (statistics counted from the rows,
//! no index): the reference the pruned [`super::search`] is checked and
//! measured against. Compiled with the `testkit` feature only.

use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use rusqlite::{Connection, params};

use super::rows::SCOPE_TOKENS;
use super::search::{archived_sql, load, query_terms};
use crate::error::Result;
use agcore_search::impact::{FieldDoc, Hit, Ranking, exhaustive as score_every};

/// BM25 over every entry of `scope` (a scan, no index): the reference the
/// pruned [`super::search::search`] equals, with statistics counted from the rows.
///
/// # Errors
/// [`MemoryError::Storage`].
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
    let fields: Vec<FieldDoc<'_>> = docs
        .iter()
        .map(|(id, terms, _)| FieldDoc::plain(*id, terms))
        .collect();
    let ranking = (Ranking::Fts5, SCOPE_TOKENS, None);
    let wanted = |i: usize| docs.get(i).is_some_and(|d| d.2);
    let mut hits: Vec<Hit<i64>> = score_every(&fields, &terms, ranking, wanted)
        .into_iter()
        .filter_map(|(i, score)| {
            let id = docs.get(i)?.0;
            Some(Hit {
                key: id,
                doc: id,
                score,
            })
        })
        .collect();
    hits.sort();
    hits.truncate(request.limit);
    load(conn, hits)
}
