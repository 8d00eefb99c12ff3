//! BM25 search in the server, in one statement: candidates from the
//! `FULLTEXT` index (`MATCH … AGAINST (… IN BOOLEAN MODE)` on the query's
//! words), scored in SQL with the same formula and statistics as the SQLite
//! backend (see [`Bm25Sql`]), ties broken by id. With a context field the
//! candidates also come from the fields' `FULLTEXT` index and are scored
//! with BM25F ([`Bm25FSql`]), as the other stores score them.

use agcore_memory::{ScoredItem, SearchOptions};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::context::Bm25FSql;
use super::filter::Where;
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::bm25::Bm25Sql;
use crate::error::Result;
use crate::row::take;
use crate::terms;

/// The store's BM25 statistics as `(d, l)` doubles.
const STATS: &str = "SELECT CAST(COALESCE(SUM(docs), 0) AS DOUBLE) AS d, \
     CAST(COALESCE(SUM(total_len), 0) AS DOUBLE) AS l FROM agcore_item_stats";

/// The context fields' statistics as `(g, cl)` doubles.
const CONTEXT_STATS: &str = "SELECT CAST(COALESCE(SUM(grouped), 0) AS DOUBLE) AS g, \
     CAST(COALESCE(SUM(context_len), 0) AS DOUBLE) AS cl FROM agcore_context_stats";

/// The scoring part of the statement, and its parameters before the
/// filter's: the candidates' scores, `keep` (the filter) and ids.
fn scored(words: &[String], filter: &str, weight: f64) -> (String, Vec<Value>) {
    let against = Value::from(terms::any_of(words));
    if weight > 0.0 {
        let bm25f = Bm25FSql::new(words.len(), weight);
        let mut params = Bm25FSql::tf_params(words);
        params.extend([against.clone(), against]);
        let sql = format!(
            "SELECT c.doc, c.id, {score} AS score FROM (
                 SELECT t.doc, t.id, t.keep, {dfs} FROM (
                     SELECT i.doc, i.id, i.len, COALESCE(x.context_len, 0) AS clen,
                            ({filter}) AS keep, {tfs}
                     FROM (SELECT doc FROM agcore_items WHERE MATCH(terms) AGAINST (? IN BOOLEAN MODE)
                           UNION
                           SELECT doc FROM agcore_item_context
                           WHERE MATCH(context_terms) AGAINST (? IN BOOLEAN MODE)) u
                     JOIN agcore_items i ON i.doc = u.doc
                     LEFT JOIN agcore_item_context x ON x.doc = u.doc
                 ) t CROSS JOIN {stats}
             ) c
             WHERE c.keep",
            score = bm25f.score(),
            dfs = bm25f.df_columns(),
            tfs = bm25f.tf_columns("i.terms", "COALESCE(x.context_terms, '')"),
            stats = Bm25FSql::stats_table(STATS, CONTEXT_STATS),
        );
        return (sql, params);
    }
    let bm25 = Bm25Sql::new(words.len());
    let mut params = Bm25Sql::tf_params(words);
    params.push(against);
    let sql = format!(
        "SELECT c.doc, c.id, {score} AS score FROM (
             SELECT t.doc, t.id, t.keep, {dfs} FROM (
                 SELECT i.doc, i.id, i.len, ({filter}) AS keep, {tfs} FROM agcore_items i
                 WHERE MATCH(i.terms) AGAINST (? IN BOOLEAN MODE)
             ) t CROSS JOIN {stats}
         ) c
         WHERE c.keep",
        score = bm25.score(),
        dfs = bm25.df_columns(),
        tfs = bm25.tf_columns("i.terms"),
        stats = Bm25Sql::stats_table(STATS),
    );
    (sql, params)
}

/// The top `options.limit` items for `query`, best first; `weight` is the
/// context field's (0: none).
pub(crate) async fn search(
    conn: &mut Conn,
    query: &str,
    options: &SearchOptions,
    weight: f64,
) -> Result<Vec<ScoredItem>> {
    let words = terms::words("", &terms::query_tokens(query));
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let cond = Where::of(&options.filter);
    let (scored, scored_params) = scored(&words, &cond.sql, weight);
    // Parameters in the order their `?` appear in the statement below.
    let mut params = cond.params.clone();
    params.extend(scored_params);
    let min = options.min_score.map_or(Value::NULL, Value::Double);
    params.push(min.clone());
    params.push(min);
    let limit = if cond.exact {
        params.push(Value::Int(i64::try_from(options.limit).unwrap_or(i64::MAX)));
        "LIMIT ?"
    } else {
        ""
    };
    let sql = format!(
        "SELECT {ITEM_COLUMNS}, s.score FROM (
             SELECT r.doc, r.id, r.score FROM ({scored}) r
             WHERE ? IS NULL OR r.score >= ?
             ORDER BY r.score DESC, r.id {limit}
         ) s JOIN agcore_items i ON i.doc = s.doc
         ORDER BY s.score DESC, i.id"
    );
    let rows: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
    let mut hits = Vec::with_capacity(rows.len().min(options.limit));
    for mut row in rows {
        let score: f64 = take(&mut row, 5)?;
        let item = item_from_row(&mut row)?;
        if !cond.exact && !options.filter.matches(&item) {
            continue;
        }
        hits.push(ScoredItem { item, score });
        if hits.len() == options.limit {
            break;
        }
    }
    Ok(hits)
}
