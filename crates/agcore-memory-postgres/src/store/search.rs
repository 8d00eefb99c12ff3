//! BM25 search in the server: candidates from `agcore_postings` for the
//! query's tokens, scored in SQL with the same formula and statistics as the
//! SQLite backend (FTS5's idf, `k1 = 1.2`, `b = 0.75`, document length in
//! analyzer tokens), ties broken by id.

use std::collections::HashMap;

use agcore_memory::retriever::{Bm25, unique_keywords};
use agcore_memory::{ScoredItem, SearchOptions};
use deadpool_postgres::Client;

use super::filter::{Params, Where, refs};
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::error::Result;

/// Most distinct query terms used (as in the SQLite backend).
const MAX_QUERY_TERMS: usize = 256;

/// The top `options.limit` items for `query`, best first.
pub(crate) async fn search(
    client: &Client,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<ScoredItem>> {
    let mut terms = unique_keywords(query);
    terms.truncate(MAX_QUERY_TERMS);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let df_params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&terms];
    let stats = client.query_one(
        "SELECT COALESCE(sum(docs), 0)::float8, COALESCE(sum(total_len), 0)::float8 FROM agcore_item_stats",
        &[],
    );
    let df = client.query(
        "SELECT term, count(*)::float8 FROM agcore_postings WHERE term = ANY($1) GROUP BY term",
        &df_params,
    );
    // Both go out on one connection without waiting for each other.
    let (stats, df) = tokio::join!(stats, df);
    let stats = stats?;
    let (docs, total_len): (f64, f64) = (stats.try_get(0)?, stats.try_get(1)?);
    let df: HashMap<String, f64> = df?
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<Result<_>>()?;
    let (mut found, mut idfs) = (Vec::new(), Vec::new());
    for term in terms {
        if let Some(&n) = df.get(&term) {
            idfs.push(Bm25::fts5_idf(docs, n));
            found.push(term);
        }
    }
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let bm25 = Bm25::default();
    let avg_len = if docs > 0.0 { total_len / docs } else { 0.0 };
    let mut params: Params = vec![
        Box::new(found),
        Box::new(idfs),
        Box::new(bm25.k1),
        Box::new(bm25.b),
        Box::new(if avg_len > 0.0 { avg_len } else { 1.0 }),
        Box::new(if avg_len > 0.0 { 1.0_f64 } else { 0.0 }),
        Box::new(options.min_score),
    ];
    let cond = Where::of(&options.filter, &mut params);
    // Only the items scoring at least the k-th best score are joined; the
    // final order (score, then id) and limit are applied to them.
    let (cutoff, limit) = if cond.exact {
        params.push(Box::new(i64::try_from(options.limit).unwrap_or(i64::MAX)));
        let k = params.len();
        (
            format!(
                " WHERE s.score >= COALESCE((SELECT score FROM s ORDER BY score DESC \
                 LIMIT 1 OFFSET ${k}::int8 - 1), '-Infinity'::float8)"
            ),
            format!("LIMIT ${k}::int8"),
        )
    } else {
        (String::new(), String::new())
    };
    // With avg_len 0 (every item empty) the length norm is 1, as in
    // `Bm25::tf_part`. Scores come from the postings index alone (grouped by
    // the items' row numbers); items are joined for the best hits, and before
    // ranking only when a filter needs them.
    let (from, filter) = if cond.sql == "TRUE" {
        (String::new(), String::new())
    } else {
        (
            " JOIN agcore_items i ON i.doc = p.doc".to_owned(),
            format!(" WHERE {}", cond.sql),
        )
    };
    let sql = format!(
        "WITH s AS MATERIALIZED (
             SELECT p.doc, sum(w.idf * (p.tf * ($3::float8 + 1.0)) /
                 (p.tf + $3::float8 * (1.0 - $4::float8 + $4::float8 *
                     (CASE WHEN $6::float8 > 0 THEN p.len / $5::float8 ELSE 1.0 END)))) AS score
             FROM unnest($1::text[], $2::float8[]) AS w(term, idf)
             JOIN agcore_postings p ON p.term = w.term{from}{filter}
             GROUP BY p.doc
         )
         SELECT {ITEM_COLUMNS}, s.score FROM s JOIN agcore_items i ON i.doc = s.doc{cutoff}
         {min_score}
         ORDER BY s.score DESC, i.id ASC {limit}",
        min_score = if cutoff.is_empty() {
            "WHERE $7::float8 IS NULL OR s.score >= $7"
        } else {
            "AND ($7::float8 IS NULL OR s.score >= $7)"
        }
    );
    let rows = client.query(&sql, &refs(&params)).await?;
    let mut hits = Vec::with_capacity(rows.len().min(options.limit));
    for row in &rows {
        let item = item_from_row(row)?;
        if !cond.exact && !options.filter.matches(&item) {
            continue;
        }
        hits.push(ScoredItem {
            item,
            score: row.try_get(5)?,
        });
        if hits.len() == options.limit {
            break;
        }
    }
    Ok(hits)
}
