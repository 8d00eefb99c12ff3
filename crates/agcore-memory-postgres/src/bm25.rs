//! The query side of BM25 shared by the store and long-term search: the
//! collection statistics and document frequencies (two queries pipelined on
//! one connection), each query term's idf (the store's [`Bm25::idf`] or
//! long-term memory's [`Bm25::fts5_idf`], as in the SQLite backend), and the
//! SQL expression that scores one posting.

use agcore_search::Bm25;
use agcore_search::collection::{found_terms, mean_length};
use agcore_search::doc_freq::in_order;
use deadpool_postgres::Client;
use tokio_postgres::types::ToSql;

use crate::error::Result;

/// What a query sends to the scoring SQL: its terms found in the collection
/// with their idf, BM25's `k1` and `b`, the mean document length (1 when the
/// collection is empty) and whether length normalisation applies (`1.0`) or
/// not (`0.0`, every document empty, as in `Bm25::tf_part`); the same two
/// for the context field (mean over the documents that have one).
pub(crate) struct QueryWeights {
    pub(crate) terms: Vec<String>,
    pub(crate) idfs: Vec<f64>,
    pub(crate) k1: f64,
    pub(crate) b: f64,
    pub(crate) avg_len: f64,
    pub(crate) norm: f64,
    pub(crate) avg_context_len: f64,
    pub(crate) context_norm: f64,
}

/// A mean length ([`mean_length`]) as the scoring SQL takes it: `(mean,
/// 1.0)`, or `(1.0, 0.0)` (no normalisation) when it is 0.
fn mean_norm(total: f64, count: f64) -> (f64, f64) {
    let avg = mean_length(total, count);
    if avg > 0.0 { (avg, 1.0) } else { (1.0, 0.0) }
}

/// The weights of `terms`: `stats_sql` returns `(documents, total length)`
/// as float8, optionally followed by `(documents with a context field,
/// their total context length)`; `df_sql` returns `(term, document
/// frequency as int8)` rows; `idf` maps `(documents, document frequency)` to a
/// term's weight. `None` when no term occurs in the collection.
pub(crate) async fn weights(
    client: &Client,
    terms: Vec<String>,
    idf: fn(f64, f64) -> f64,
    (stats_sql, stats_params): (&str, &[&(dyn ToSql + Sync)]),
    (df_sql, df_params): (&str, &[&(dyn ToSql + Sync)]),
) -> Result<Option<QueryWeights>> {
    // Both statements have fixed text: prepared once per connection (a
    // round trip and a parse less per search), then run pipelined.
    let (stats_stmt, df_stmt) = tokio::try_join!(
        client.prepare_cached(stats_sql),
        client.prepare_cached(df_sql)
    )?;
    let (stats, df) = tokio::join!(
        client.query_one(&stats_stmt, stats_params),
        client.query(&df_stmt, df_params)
    );
    let stats = stats?;
    let (docs, total_len): (f64, f64) = (stats.try_get(0)?, stats.try_get(1)?);
    let (grouped, context_len): (f64, f64) = if stats.len() >= 4 {
        (stats.try_get(2)?, stats.try_get(3)?)
    } else {
        (0.0, 0.0)
    };
    let df: Vec<(String, i64)> = df?
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<Result<_>>()?;
    let dfs = in_order(&terms, df);
    let found = found_terms(terms.into_iter().zip(dfs), docs, idf);
    if found.is_empty() {
        return Ok(None);
    }
    let bm25 = Bm25::default();
    let (avg_len, norm) = mean_norm(total_len, docs);
    let (avg_context_len, context_norm) = mean_norm(context_len, grouped);
    Ok(Some(QueryWeights {
        terms: found.terms,
        idfs: found.idfs,
        k1: bm25.k1,
        b: bm25.b,
        avg_len,
        norm,
        avg_context_len,
        context_norm,
    }))
}

/// `1 − b + b·{len}/avg` with `b`, the mean and the norm switch in
/// parameters `$b`, `$avg`, `$norm` (1 when the switch is off).
fn length_norm(b: usize, avg: usize, norm: usize, len: &str) -> String {
    format!(
        "(CASE WHEN ${norm}::float8 > 0 THEN 1.0 - ${b}::float8 + ${b}::float8 * {len} / ${avg}::float8 ELSE 1.0 END)"
    )
}

/// The BM25F contribution of posting `p` (columns `tf`, `len`, `ctf`,
/// `clen`) for term weight `w.idf`, as [`Bm25F::tf_part`](agcore_search::Bm25F::tf_part)
/// computes it: parameters `$k1 .. $k1 + 6` hold `k1`, `b`, the mean own
/// length and its norm switch, the mean context length and its switch, and
/// the context field's weight. A posting without context occurrences (or
/// weight 0) scores exactly as [`posting_score`] does.
pub(crate) fn field_posting_score(k1: usize) -> String {
    let (b, avg, norm, cavg, cnorm, weight) = (k1 + 1, k1 + 2, k1 + 3, k1 + 4, k1 + 5, k1 + 6);
    let combined = format!(
        "(p.tf / {own} + ${weight}::float8 * p.ctf / {context})",
        own = length_norm(b, avg, norm, "p.len"),
        context = length_norm(b, cavg, cnorm, "p.clen"),
    );
    format!(
        "CASE WHEN p.ctf > 0 AND ${weight}::float8 > 0 \
         THEN w.idf * ({combined} * (${k1}::float8 + 1.0) / (${k1}::float8 + {combined})) \
         ELSE {plain} END",
        plain = posting_score(k1, "p.len"),
    )
}

/// The BM25 contribution of posting `p` (column `tf`; the document length
/// in column `len`, e.g. `p.len`) for term weight `w.idf`, with `k1`, `b`,
/// mean length and the norm switch in parameters `$k1 .. $k1 + 3` (as laid
/// out by [`QueryWeights`]).
pub(crate) fn posting_score(k1: usize, len: &str) -> String {
    let (b, avg, norm) = (k1 + 1, k1 + 2, k1 + 3);
    format!(
        "w.idf * (p.tf * (${k1}::float8 + 1.0)) / (p.tf + ${k1}::float8 * (1.0 - ${b}::float8 + \
         ${b}::float8 * (CASE WHEN ${norm}::float8 > 0 THEN {len} / ${avg}::float8 ELSE 1.0 END)))"
    )
}
