//! BM25 search in the server, in one statement: candidates from the
//! `FULLTEXT` index (`MATCH … AGAINST (… IN BOOLEAN MODE)` on the query's
//! words), scored in SQL with the same formula and statistics as the SQLite
//! backend (see [`Bm25Sql`]), ties broken by id.

use agcore_memory::{ScoredItem, SearchOptions};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::filter::Where;
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::error::Result;
use crate::row::take;
use crate::terms::{self, Bm25Sql};

/// The store's BM25 statistics as `(d, l)` doubles.
const STATS: &str = "SELECT CAST(COALESCE(SUM(docs), 0) AS DOUBLE) AS d, \
     CAST(COALESCE(SUM(total_len), 0) AS DOUBLE) AS l FROM agcore_item_stats";

/// The top `options.limit` items for `query`, best first.
pub(crate) async fn search(
    conn: &mut Conn,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<ScoredItem>> {
    let words = terms::words("", &terms::query_tokens(query));
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let bm25 = Bm25Sql::new(words.len());
    let cond = Where::of(&options.filter);
    // Parameters in the order their `?` appear in the statement below.
    let mut params = cond.params.clone();
    params.extend(Bm25Sql::tf_params(&words));
    params.push(Value::from(terms::any_of(&words)));
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
             SELECT r.doc, r.id, r.score FROM (
                 SELECT c.doc, c.id, {score} AS score FROM (
                     SELECT t.doc, t.id, t.len, t.keep, {dfs} FROM (
                         SELECT i.doc, i.id, i.len, ({filter}) AS keep, {tfs} FROM agcore_items i
                         WHERE MATCH(i.terms) AGAINST (? IN BOOLEAN MODE)
                     ) t
                 ) c CROSS JOIN {stats}
                 WHERE c.keep
             ) r
             WHERE ? IS NULL OR r.score >= ?
             ORDER BY r.score DESC, r.id {limit}
         ) s JOIN agcore_items i ON i.doc = s.doc
         ORDER BY s.score DESC, i.id",
        score = bm25.score(),
        dfs = bm25.df_columns(),
        filter = cond.sql,
        tfs = bm25.tf_columns("i.terms"),
        stats = Bm25Sql::stats_table(STATS),
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
