//! BM25F search in the server: candidates from `agcore_postings` for the
//! query's tokens (in either field), scored in SQL with the same formula and
//! statistics as the SQLite backend and `InMemoryStore` (idf `ln(1 + (N −
//! df + 0.5) / (df + 0.5))` with `df` counting either field, `k1 = 1.2`,
//! `b = 0.75`, each field normalised by its own mean length in analyzer
//! tokens — the context field's over the items in a sequence — the context
//! weighted, then saturated once; items without a field score as plain
//! BM25), ties broken by id.

use agcore_memory::sql_store::best_hits;
use agcore_memory::{ScoredItem, SearchOptions};
use agcore_search::{Bm25, capped_query_terms};
use deadpool_postgres::Client;

use tokio_postgres::Row;
use tokio_postgres::types::Type;

use super::filter::{Params, Where};
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::bm25;
use crate::error::Result;

/// The top `options.limit` items for `query`, best first; `weight` is the
/// context field's (0: none).
pub(crate) async fn search(
    client: &Client,
    query: &str,
    options: &SearchOptions,
    weight: f64,
) -> Result<Vec<ScoredItem>> {
    let terms = capped_query_terms(query);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let df_params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&terms];
    let Some(w) = bm25::weights(
        client,
        terms.clone(),
        Bm25::idf,
        (
            "SELECT COALESCE(sum(docs), 0)::float8, COALESCE(sum(total_len), 0)::float8,
                    COALESCE(sum(grouped), 0)::float8, COALESCE(sum(context_len), 0)::float8
             FROM agcore_item_stats",
            &[],
        ),
        (
            "SELECT term, count(*) FROM agcore_postings WHERE term = ANY($1) GROUP BY term",
            &df_params,
        ),
    )
    .await?
    else {
        return Ok(Vec::new());
    };
    let mut params = Params::default();
    let (sql, exact) = statement(w, weight, options, &mut params);
    let rows = client.query_typed(&sql, &params.typed()).await?;
    let item = |row: &mut &Row| item_from_row(row);
    best_hits(&rows, (options, exact), item, |row| Ok(row.try_get(5)?))
}

/// The search statement for the weights `w` and its parameters (pushed
/// onto `params`); whether its filter is exact in SQL (else hits are
/// filtered again in process).
fn statement(
    w: bm25::QueryWeights,
    weight: f64,
    options: &SearchOptions,
    params: &mut Params,
) -> (String, bool) {
    params.push(w.terms, Type::TEXT_ARRAY);
    params.push(w.idfs, Type::FLOAT8_ARRAY);
    for value in [
        w.k1,
        w.b,
        w.avg_len,
        w.norm,
        w.avg_context_len,
        w.context_norm,
        weight,
    ] {
        params.push(value, Type::FLOAT8);
    }
    params.push(options.min_score, Type::FLOAT8);
    let cond = Where::of(&options.filter, params);
    // Only the items scoring at least the k-th best score are joined; the
    // final order (score, then id) and limit are applied to them.
    let (cutoff, limit) = if cond.exact {
        let k = params.push(i64::try_from(options.limit).unwrap_or(i64::MAX), Type::INT8);
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
    // `Bm25::tf_part` (and likewise for the context field). Scores come from the postings index alone (grouped by
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
             SELECT p.doc, sum({score}) AS score
             FROM unnest($1::text[], $2::float8[]) AS w(term, idf)
             JOIN agcore_postings p ON p.term = w.term{from}{filter}
             GROUP BY p.doc
         )
         SELECT {ITEM_COLUMNS}, s.score FROM s JOIN agcore_items i ON i.doc = s.doc{cutoff}
         {min_score}
         ORDER BY s.score DESC, i.id ASC {limit}",
        score = bm25::field_posting_score(3),
        min_score = if cutoff.is_empty() {
            "WHERE $10::float8 IS NULL OR s.score >= $10"
        } else {
            "AND ($10::float8 IS NULL OR s.score >= $10)"
        }
    );
    (sql, cond.exact)
}
