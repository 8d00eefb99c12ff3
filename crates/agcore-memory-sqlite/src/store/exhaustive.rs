//! The exhaustive reference search of [`SqliteStore`] (`testkit` feature):
//! BM25F over every row, with the collection statistics counted from the
//! rows (no index), which the pruned
//! [`MemoryStore::search`](agcore_memory::MemoryStore::search) is tested and
//! measured against.

use std::collections::{HashMap, HashSet};

use agcore_memory::retriever::{ContextField, validate_search_options};
use agcore_memory::{MemoryError, ScoredItem, SearchOptions};
use agcore_search::{Bm25, Bm25F, unique_index_terms};
use rusqlite::Connection;

use super::SqliteStore;
use super::query::{self, ITEM_COLUMNS, MAX_QUERY_TERMS, SqlFilter, filter_sql};
use crate::error::Result;
use crate::impact::term_frequencies;

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
        let mut terms = unique_index_terms(query);
        terms.truncate(MAX_QUERY_TERMS);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let plan = Plan {
            terms,
            filter: filter_sql(&options.filter),
            limit: options.limit,
            min_score: options.min_score,
            weight: self.db.context().map_or(0.0, |c: &ContextField| c.weight),
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
    weight: f64,
}

/// A row's fields counted: `(len, tfs, context: (len, tfs))`.
type Counted<'a> = (
    u32,
    HashMap<&'a str, u32>,
    Option<(u32, HashMap<&'a str, u32>)>,
);

/// A field's length and term frequencies.
fn count(text: &str) -> (u32, HashMap<&str, u32>) {
    let (len, tfs) = term_frequencies(text, 0);
    (len, tfs.into_iter().collect())
}

/// Scores every row passing the filter; best first, ties by id.
#[allow(clippy::cast_precision_loss)]
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
    let counted: Vec<Counted<'_>> = rows
        .iter()
        .map(|(_, _, terms, context)| {
            let (len, tfs) = count(terms);
            (len, tfs, context.as_deref().map(count))
        })
        .collect();
    let n = counted.len() as f64;
    let grouped: Vec<u32> = counted
        .iter()
        .filter_map(|c| c.2.as_ref().map(|x| x.0))
        .collect();
    let mean = |total: f64, count: usize| {
        if count > 0 { total / count as f64 } else { 0.0 }
    };
    let fields = Bm25F {
        bm25: Bm25::default(),
        avg_len: mean(counted.iter().map(|c| f64::from(c.0)).sum(), counted.len()),
        avg_context_len: mean(grouped.iter().map(|&l| f64::from(l)).sum(), grouped.len()),
        weight: plan.weight,
    };
    let holds = |c: &Counted<'_>, term: &str| {
        c.1.contains_key(term) || c.2.as_ref().is_some_and(|x| x.1.contains_key(term))
    };
    let idfs: Vec<(&str, f64)> = plan
        .terms
        .iter()
        .map(|t| {
            let df = counted.iter().filter(|c| holds(c, t)).count();
            let idf = if df > 0 { Bm25::idf(n, df as f64) } else { 0.0 };
            (t.as_str(), idf)
        })
        .collect();
    let mut hits: Vec<(f64, &str, i64)> = Vec::new();
    for ((pk, id, _, _), c) in rows.iter().zip(&counted) {
        if !wanted.contains(pk) || !idfs.iter().any(|(t, _)| holds(c, t)) {
            continue;
        }
        let mut score = 0.0;
        for &(term, idf) in &idfs {
            let tf = c.1.get(term).copied().unwrap_or(0);
            let (clen, ctf) =
                c.2.as_ref()
                    .map_or((0, 0), |(l, m)| (*l, m.get(term).copied().unwrap_or(0)));
            score += idf
                * fields.tf_part(
                    f64::from(tf),
                    f64::from(c.0),
                    f64::from(ctf),
                    f64::from(clen),
                );
        }
        if score > 0.0 && score.is_finite() && plan.min_score.is_none_or(|m| score >= m) {
            hits.push((score, id, *pk));
        }
    }
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
