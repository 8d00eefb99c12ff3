//! Search on a connection: the pruned top-k over the impact-ordered index
//! ([`pruned`]) and the exhaustive FTS5 `MATCH` ranked by `bm25()` ([`search`]).

use crate::error::Result;
use rusqlite::Connection;
use rusqlite::types::Value;

use super::query::{self, ITEM_COLUMNS, SqlFilter};
use crate::topk::{Fetched, TopKQuery, top_k};
use agcore_memory::ScoredItem;

/// The scope of `SqliteStore` rows in the impact-ordered index.
pub(crate) const STORE_SCOPE: i64 = 0;

/// A pruned search: distinct query terms, the filter, top-k, minimum score.
pub(crate) struct PrunedPlan {
    pub(crate) terms: Vec<String>,
    pub(crate) filter: SqlFilter,
    pub(crate) limit: usize,
    pub(crate) min_score: Option<f64>,
}

/// The exact BM25 top-k (same scores as FTS5's `bm25()` over the same terms,
/// ties by id) with the threshold algorithm over the impact-ordered index:
/// only the best postings of the query's terms and the rows they name are read.
pub(crate) fn pruned(conn: &Connection, plan: &PrunedPlan) -> Result<Vec<ScoredItem>> {
    let sql = format!(
        "SELECT i.id, i.terms FROM memory_items i WHERE i.pk = ? AND {}",
        plan.filter.clause
    );
    let mut by_pk = conn.prepare_cached(&sql)?;
    let mut fetch = |pk: i64| -> Result<Option<Fetched<String>>> {
        let params = std::iter::once(Value::Integer(pk)).chain(plan.filter.params.iter().cloned());
        let mut rows = by_pk.query(rusqlite::params_from_iter(params))?;
        Ok(match rows.next()? {
            Some(row) => Some(Fetched {
                key: row.get(0)?,
                terms: row.get(1)?,
            }),
            None => None,
        })
    };
    let query = TopKQuery {
        scope: STORE_SCOPE,
        terms: &plan.terms,
        limit: plan.limit,
        min_score: plan.min_score,
        skip: 0,
        // Ties go by the text id, not by the row number.
        key_is_doc: false,
    };
    let hits = top_k(conn, &query, &mut fetch)?;
    let mut item = conn.prepare_cached(&format!(
        "SELECT {ITEM_COLUMNS} FROM memory_items i WHERE i.pk = ?1"
    ))?;
    let mut out = Vec::with_capacity(hits.len());
    for hit in hits {
        let mut rows = item.query([hit.doc])?;
        if let Some(row) = rows.next()? {
            out.push(ScoredItem {
                item: query::item_from_row(row)?,
                score: hit.score,
            });
        }
    }
    Ok(out)
}

/// One search: the FTS5 expression, the candidate filter, top-k, minimum score.
pub(crate) struct SearchPlan {
    pub(crate) expression: String,
    pub(crate) filter: SqlFilter,
    /// Whether the filter constrains anything (otherwise the fast path applies).
    pub(crate) filtered: bool,
    pub(crate) limit: usize,
    pub(crate) min_score: Option<f64>,
}

/// Runs `plan`: hits best first (score = −bm25, ties by id), at most `limit`,
/// none scoring below `min_score`.
pub(crate) fn search(conn: &Connection, plan: SearchPlan) -> Result<Vec<ScoredItem>> {
    let mut hits = if plan.filtered {
        full(conn, &plan)?
    } else {
        match top_k_first(conn, &plan)? {
            Some(hits) => hits,
            None => full(conn, &plan)?,
        }
    };
    hits.truncate(plan.limit);
    if let Some(min) = plan.min_score {
        // Best first: everything after the first one below the bar is below it too.
        let keep = hits.iter().take_while(|h| h.score >= min).count();
        hits.truncate(keep);
    }
    Ok(hits)
}

/// Unfiltered fast path: FTS5 ranks inside the index (`ORDER BY rank`) and
/// only the best `limit + 1` rows are joined with the items. `None` when the
/// `limit`-th and the next hit tie (the id tie-break then needs every tied
/// row: [`full`] runs instead).
fn top_k_first(conn: &Connection, plan: &SearchPlan) -> Result<Option<Vec<ScoredItem>>> {
    let sql = format!(
        "SELECT {ITEM_COLUMNS}, -f.rank AS score \
         FROM (SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ?1 \
               ORDER BY rank LIMIT ?2) AS f \
         JOIN memory_items i ON i.pk = f.rowid \
         ORDER BY f.rank, i.id"
    );
    let fetch = i64::try_from(plan.limit.saturating_add(1)).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query(rusqlite::params![plan.expression, fetch])?;
    let hits = collect(rows)?;
    if hits.len() > plan.limit {
        let kth = hits.get(plan.limit.saturating_sub(1)).map(|h| h.score);
        let next = hits.get(plan.limit).map(|h| h.score);
        if kth == next {
            return Ok(None);
        }
    }
    Ok(Some(hits))
}

/// Every match passing the filter, joined, sorted by (score desc, id), top `limit`.
fn full(conn: &Connection, plan: &SearchPlan) -> Result<Vec<ScoredItem>> {
    let limit = i64::try_from(plan.limit).unwrap_or(i64::MAX);
    let sql = format!(
        "SELECT {ITEM_COLUMNS}, -bm25(memory_fts) AS score \
         FROM memory_fts JOIN memory_items i ON i.pk = memory_fts.rowid \
         WHERE memory_fts MATCH ? AND {} \
         ORDER BY score DESC, i.id LIMIT {limit}",
        plan.filter.clause
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let params = std::iter::once(Value::Text(plan.expression.clone()))
        .chain(plan.filter.params.iter().cloned());
    let rows = stmt.query(rusqlite::params_from_iter(params))?;
    collect(rows)
}

fn collect(mut rows: rusqlite::Rows<'_>) -> Result<Vec<ScoredItem>> {
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let score: f64 = row.get(5)?;
        if score <= 0.0 {
            continue;
        }
        out.push(ScoredItem {
            item: query::item_from_row(row)?,
            score,
        });
    }
    Ok(out)
}
