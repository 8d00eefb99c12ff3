//! The exhaustive reference search of [`SqliteStore`] (`testkit` feature):
//! BM25F over every row, with the collection statistics counted from the
//! rows (no index), which the pruned
//! [`MemoryStore::search`](agcore_memory::MemoryStore::search) is tested and
//! measured against.

use std::collections::HashSet;

use agcore_memory::retriever::validate_search_options;
use agcore_memory::{MemoryError, ScoredItem, SearchOptions};
use agcore_search::capped_query_terms;
use agcore_search::impact::{FieldDoc, Ranking, exhaustive};
use rusqlite::Connection;

use super::SqliteStore;
use super::query::{self, ITEM_COLUMNS, SqlFilter, filter_sql};
use crate::error::Result;

impl SqliteStore {
    /// BM25F over every row (own text and context field, statistics counted
    /// from the rows): the exhaustive reference the pruned
    /// [`MemoryStore::search`](agcore_memory::MemoryStore::search) equals
    /// (same hits and order, scores up to float rounding) and is measured
    /// against.
    ///
    /// # Errors
    /// As [`MemoryStore::search`](agcore_memory::MemoryStore::search).
    #[doc(hidden)]
    pub async fn exhaustive_search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> std::result::Result<Vec<ScoredItem>, MemoryError> {
        validate_search_options(options)?;
        let terms = capped_query_terms(query);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let plan = Plan {
            terms,
            filter: filter_sql(&options.filter),
            limit: options.limit,
            min_score: options.min_score,
            ranking: super::search::ranking(self.db.context()),
        };
        self.db.read(move |conn| scan(conn, &plan)).await
    }
}

/// One reference search.
struct Plan {
    terms: Vec<String>,
    filter: SqlFilter,
    limit: usize,
    min_score: Option<f64>,
    /// How terms are weighed ([`super::search::ranking`]).
    ranking: Ranking,
}

/// The reference top-`limit`: every row scored (statistics counted from
/// the rows by [`agcore_search::impact::exhaustive`]), those the filter
/// keeps ranked by score, then id.
///
/// # Errors
/// [`MemoryError::Storage`] when the table cannot be read.
fn scan(conn: &Connection, plan: &Plan) -> Result<Vec<ScoredItem>> {
    let rows: Vec<(i64, String, String, Option<String>)> = conn
        .prepare(
            "SELECT pk, id, terms, CASE WHEN grp IS NULL THEN NULL ELSE context_terms END \
             FROM memory_items",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<std::result::Result<_, _>>()?;
    let wanted: HashSet<i64> = conn
        .prepare(&format!(
            "SELECT i.pk FROM memory_items i WHERE {}",
            plan.filter.clause
        ))?
        .query_map(rusqlite::params_from_iter(plan.filter.params.iter()), |r| {
            r.get(0)
        })?
        .collect::<std::result::Result<_, _>>()?;
    let docs: Vec<FieldDoc<'_>> = rows
        .iter()
        .map(|(pk, _, terms, context)| FieldDoc {
            doc: *pk,
            terms,
            context: context.as_deref(),
        })
        .collect();
    let scored = exhaustive(&docs, &plan.terms, (plan.ranking, 0, plan.min_score), |i| {
        rows.get(i).is_some_and(|r| wanted.contains(&r.0))
    });
    let mut hits: Vec<(f64, &str, i64)> = scored
        .into_iter()
        .filter_map(|(i, score)| rows.get(i).map(|r| (score, r.1.as_str(), r.0)))
        .collect();
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    hits.truncate(plan.limit);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ITEM_COLUMNS} FROM memory_items i WHERE i.pk = ?1"
    ))?;
    let mut out = Vec::with_capacity(hits.len());
    for (score, _, pk) in hits {
        let mut found = stmt.query([pk])?;
        if let Some(row) = found.next()? {
            out.push(ScoredItem {
                item: query::item_from_row(row)?,
                score,
            });
        }
    }
    Ok(out)
}
