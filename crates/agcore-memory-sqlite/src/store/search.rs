//! Search on a connection: the pruned top-k over the impact-ordered index
//! ([`pruned`]).

use crate::error::Result;
use rusqlite::Connection;
use rusqlite::types::Value;

use super::query::{self, ITEM_COLUMNS, SqlFilter};
use crate::topk::{Fetched, Ranking, TopKQuery, top_k};
use agcore_memory::ScoredItem;
use agcore_memory::retriever::{Bm25, ContextField};

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
pub(crate) fn pruned(conn: &Connection, plan: &PrunedPlan) -> Result<Vec<ScoredItem>> {
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
