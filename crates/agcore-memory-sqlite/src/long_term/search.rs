//! Scoped BM25 search: the exact top-k by the threshold algorithm over the
//! scope's impact-ordered postings (`crate::topk`).
//!
//! Scores are BM25 with FTS5 `bm25()`'s formula (k1 = 1.2, b = 0.75, idf
//! `ln((N − df + 0.5)/(df + 0.5))`, at least 1e-6) over the scope's own
//! collection: N, document frequencies and mean length count only the
//! scope's entries (archived ones included), so other users' memories never
//! influence a ranking.

use crate::error::Result;

use rusqlite::{Connection, params};

use super::rows::{self, ENTRY_COLUMNS, SCOPE_TOKENS, entry_from_row};
use crate::topk::{Fetched, Hit, Ranking, TopKQuery, top_k};
use agcore_memory::long_term::MemoryScope;
use agcore_memory::long_term::{ScoredEntry, SearchRequest};
use agcore_search::capped_query_terms;

/// The `archived` condition of `filter` on table alias `m`.
fn archived_sql(filter: agcore_memory::long_term::ArchivedFilter) -> &'static str {
    use agcore_memory::long_term::ArchivedFilter as A;
    match filter {
        A::Include => "1",
        A::Only => "m.archived = 1",
        _ => "m.archived = 0",
    }
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
    let terms = capped_query_terms(query);
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
        let mut rows = by_id.query(params![id, scope.agent(), scope.user(), ty])?;
        Ok(match rows.next()? {
            Some(row) => Some(Fetched {
                key: row.get(0)?,
                terms: row.get(1)?,
                context: None,
            }),
            None => None,
        })
    };
    let top = TopKQuery {
        scope: rows::scope_id(scope.agent(), scope.user()),
        terms: &terms,
        limit: request.limit,
        min_score: None,
        skip: SCOPE_TOKENS,
        // Ties go by id, which is the document number.
        key_is_doc: true,
        ranking: Ranking::Fts5,
    };
    let hits = top_k(conn, &top, &mut fetch)?;
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
