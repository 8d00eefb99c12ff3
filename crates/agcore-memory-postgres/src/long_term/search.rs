//! Scoped BM25 search: candidates from the scope's postings only, scored in
//! SQL with the scope's own statistics (entries, archived included, and
//! their mean length), FTS5's idf and `k1 = 1.2`, `b = 0.75`, as the SQLite
//! backend ranks; ties by id.

use std::collections::HashMap;

use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use agcore_memory::retriever::{Bm25, unique_keywords};
use deadpool_postgres::Client;

use super::ops::archived_sql;
use super::rows::{self, ENTRY_COLUMNS, entry_from_row};
use crate::error::Result;

const MAX_QUERY_TERMS: usize = 256;

pub(crate) async fn search(
    client: &Client,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let mut terms = unique_keywords(query);
    terms.truncate(MAX_QUERY_TERMS);
    if terms.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let Some(scope_id) = rows::existing_scope_id(client, scope).await? else {
        return Ok(Vec::new());
    };
    let stats_params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&scope_id];
    let df_params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&scope_id, &terms];
    let stats = client.query_one(
        "SELECT docs::float8, total_len::float8 FROM agcore_lt_scopes WHERE id = $1",
        &stats_params,
    );
    let df = client.query(
        "SELECT term, count(*)::float8 FROM agcore_lt_postings
         WHERE scope_id = $1 AND term = ANY($2) GROUP BY term",
        &df_params,
    );
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
    let norm_on = if avg_len > 0.0 { 1.0_f64 } else { 0.0 };
    let avg = if avg_len > 0.0 { avg_len } else { 1.0 };
    let ty = request.memory_type.map(|t| t.as_str());
    let limit = i64::try_from(request.limit).unwrap_or(i64::MAX);
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, s.score FROM (
             SELECT p.entry_id, sum(w.idf * (p.tf * ($4::float8 + 1.0)) /
                 (p.tf + $4::float8 * (1.0 - $5::float8 + $5::float8 *
                     (CASE WHEN $7::float8 > 0 THEN m.len / $6::float8 ELSE 1.0 END)))) AS score
             FROM unnest($2::text[], $3::float8[]) AS w(term, idf)
             JOIN agcore_lt_postings p ON p.scope_id = $1 AND p.term = w.term
             JOIN agcore_lt_entries m ON m.id = p.entry_id
             WHERE ($8::text IS NULL OR m.memory_type = $8) AND {}
             GROUP BY p.entry_id
         ) s JOIN agcore_lt_entries m ON m.id = s.entry_id
         ORDER BY s.score DESC, m.id ASC LIMIT $9",
        archived_sql(request.archived)
    );
    let rows = client
        .query(
            &sql,
            &[
                &scope_id, &found, &idfs, &bm25.k1, &bm25.b, &avg, &norm_on, &ty, &limit,
            ],
        )
        .await?;
    rows.iter()
        .map(|row| {
            Ok(ScoredEntry {
                entry: entry_from_row(row)?,
                score: row.try_get(16)?,
            })
        })
        .collect()
}
