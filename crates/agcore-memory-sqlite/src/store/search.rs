//! Search on a connection: the pruned top-k over the impact-ordered index
//! ([`pruned`]).

use crate::error::Result;
use rusqlite::Connection;
use rusqlite::types::Value;
use std::collections::HashMap;

use super::query::{self, ITEM_COLUMNS, SqlFilter};
use crate::topk::{Fetched, Ranking, TopKQuery, top_k};
use agcore_memory::ScoredItem;
use agcore_memory::retriever::ContextField;
use agcore_search::Bm25;

/// The scope of `SqliteStore` rows in the impact-ordered index.
pub(crate) const STORE_SCOPE: i64 = 0;

/// A pruned search: distinct query terms, the filter, top-k, minimum score.
pub(crate) struct PrunedPlan {
    pub(crate) terms: Vec<String>,
    pub(crate) filter: SqlFilter,
    pub(crate) limit: usize,
    pub(crate) min_score: Option<f64>,
    /// How terms are weighed ([`ranking`]).
    pub(crate) ranking: Ranking,
}

/// The store's ranking: BM25F with the default k1 and b and `context`'s
/// weight (plain BM25 without a field), as `InMemoryStore` ranks.
pub(crate) fn ranking(context: Option<&ContextField>) -> Ranking {
    Ranking::Fields {
        bm25: Bm25::default(),
        weight: context.map_or(0.0, |c| c.weight),
    }
}

/// The exact BM25F top-k (the same scores as `InMemoryStore` gives the same
/// items, ties by id) with the threshold algorithm over the impact-ordered
/// index: only the best postings of the query's terms and the rows they
/// name are read.
///
/// The search runs in one read transaction (when the connection is not in
/// one already): its many short statements then share one snapshot and one
/// lock instead of taking and releasing the file lock each.
pub(crate) fn pruned(conn: &Connection, plan: &PrunedPlan) -> Result<Vec<ScoredItem>> {
    if !conn.is_autocommit() {
        return pruned_in(conn, plan);
    }
    // Cached: `BEGIN` and `COMMIT` are not parsed again at every search.
    conn.prepare_cached("BEGIN")?.execute([])?;
    let found = pruned_in(conn, plan);
    // A read-only transaction: ending it cannot lose anything.
    let ended = conn.prepare_cached("COMMIT")?.execute([]);
    let found = found?;
    ended?;
    Ok(found)
}

/// [`pruned`] inside the caller's transaction.
fn pruned_in(conn: &Connection, plan: &PrunedPlan) -> Result<Vec<ScoredItem>> {
    let sql = format!(
        "SELECT i.id, i.terms, CASE WHEN i.grp IS NULL THEN NULL ELSE i.context_terms END \
         FROM memory_items i WHERE i.pk = ? AND {}",
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
                context: row.get(2)?,
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
        ranking: plan.ranking,
    };
    let hits = top_k(conn, &query, &mut fetch)?;
    // The hits' rows in one statement (their numbers as a JSON array).
    let pks = hits
        .iter()
        .map(|hit| hit.doc.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut items = conn.prepare_cached(&format!(
        "SELECT {ITEM_COLUMNS}, i.pk FROM memory_items i \
         WHERE i.pk IN (SELECT value FROM json_each(?1))"
    ))?;
    let mut rows = items.query([format!("[{pks}]")])?;
    let mut by_pk = HashMap::with_capacity(hits.len());
    while let Some(row) = rows.next()? {
        by_pk.insert(row.get::<_, i64>(5)?, query::item_from_row(row)?);
    }
    Ok(hits
        .into_iter()
        .filter_map(|hit| {
            by_pk.remove(&hit.doc).map(|item| ScoredItem {
                item,
                score: hit.score,
            })
        })
        .collect())
}
