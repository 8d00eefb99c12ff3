//! Scoped BM25 search: candidates from the scope's postings only, scored in
//! SQL with the scope's own statistics (entries, archived included, and
//! their mean length), FTS5's idf and `k1 = 1.2`, `b = 0.75`, as the SQLite
//! backend ranks; ties by id.

use agcore_memory::long_term::sql::{ENTRY_COLUMNS, archived_sql};
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use agcore_search::{Bm25, capped_query_terms};
use deadpool_postgres::Client;
use tokio_postgres::types::Type;

use super::rows::{self, entry_from_row};
use crate::bm25;
use crate::error::Result;

pub(crate) async fn search(
    client: &Client,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let terms = capped_query_terms(query);
    if terms.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let Some(scope_id) = rows::existing_scope_id(client, scope).await? else {
        return Ok(Vec::new());
    };
    let stats_params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&scope_id];
    let df_params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&scope_id, &terms];
    let Some(w) = bm25::weights(
        client,
        terms.clone(),
        Bm25::fts5_idf,
        (
            "SELECT docs::float8, total_len::float8 FROM agcore_lt_scopes WHERE id = $1",
            &stats_params,
        ),
        (
            "SELECT term, count(*) FROM agcore_lt_postings
             WHERE scope_id = $1 AND term = ANY($2) GROUP BY term",
            &df_params,
        ),
    )
    .await?
    else {
        return Ok(Vec::new());
    };
    let ty = request.memory_type.map(|t| t.as_str());
    let limit = i64::try_from(request.limit).unwrap_or(i64::MAX);
    // Scored from the postings' covering index alone (each posting holds
    // its entry's length, archive flag and type); only the best `$9`
    // entries are read.
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, s.score FROM (
             SELECT p.entry_id, sum({score}) AS score
             FROM unnest($2::text[], $3::float8[]) AS w(term, idf)
             JOIN agcore_lt_postings p ON p.scope_id = $1 AND p.term = w.term
             WHERE ($8::text IS NULL OR p.memory_type = $8) AND {}
             GROUP BY p.entry_id
             ORDER BY score DESC, p.entry_id ASC LIMIT $9
         ) s JOIN agcore_lt_entries m ON m.id = s.entry_id
         ORDER BY s.score DESC, m.id ASC",
        archived_sql(request.archived, "p"),
        score = bm25::posting_score(4, "p.len"),
    );
    // Typed parameters: sent with the statement in one round trip.
    let rows = client
        .query_typed(
            &sql,
            &[
                (&scope_id, Type::INT8),
                (&w.terms, Type::TEXT_ARRAY),
                (&w.idfs, Type::FLOAT8_ARRAY),
                (&w.k1, Type::FLOAT8),
                (&w.b, Type::FLOAT8),
                (&w.avg_len, Type::FLOAT8),
                (&w.norm, Type::FLOAT8),
                (&ty, Type::TEXT),
                (&limit, Type::INT8),
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
