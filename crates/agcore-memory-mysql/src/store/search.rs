//! BM25 search in the server: candidates from the `FULLTEXT` index
//! (`MATCH … AGAINST (… IN BOOLEAN MODE)` on the query's words), scored in
//! SQL with the same formula and statistics as the SQLite backend (FTS5's
//! idf, `k1 = 1.2`, `b = 0.75`, document length in analyzer tokens), ties
//! broken by id.

use agcore_memory::retriever::unique_keywords;
use agcore_memory::{ScoredItem, SearchOptions};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::filter::Where;
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::error::Result;
use crate::row::take;
use crate::terms::{self, MAX_QUERY_TERMS, QueryWeights};

/// The BM25 weights of `words` in the rows of `table` matching `scope_sql`
/// (statistics from `stats_sql`, two columns: documents, total length).
/// One round trip: statistics and document frequencies in one statement.
pub(crate) async fn weights(
    conn: &mut Conn,
    words: Vec<String>,
    (stats_sql, stats_params): (&str, Vec<Value>),
    table: &str,
) -> Result<Option<QueryWeights>> {
    let sql = format!(
        "SELECT -1, s.d, s.l FROM ({stats_sql}) s UNION ALL {}",
        terms::df_sql(table, words.len()).replace("COUNT(*)", "COUNT(*), 0")
    );
    let mut params = stats_params;
    params.extend(words.iter().map(|w| Value::from(w.as_str())));
    let rows: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
    let (mut docs, mut total) = (0.0, 0.0);
    let mut dfs = vec![0.0; words.len()];
    for mut row in rows {
        let index: i64 = take(&mut row, 0)?;
        let value: Option<f64> = take(&mut row, 1)?;
        if index < 0 {
            docs = value.unwrap_or(0.0);
            total = take::<Option<f64>>(&mut row, 2)?.unwrap_or(0.0);
        } else if let Some(df) = usize::try_from(index).ok().and_then(|i| dfs.get_mut(i)) {
            *df = value.unwrap_or(0.0);
        }
    }
    Ok(QueryWeights::new(words, &dfs, docs, total))
}

/// The top `options.limit` items for `query`, best first.
pub(crate) async fn search(
    conn: &mut Conn,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<ScoredItem>> {
    let mut tokens = unique_keywords(query);
    tokens.truncate(MAX_QUERY_TERMS);
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let words: Vec<String> = tokens.iter().map(|t| terms::word("", t)).collect();
    let Some(w) = weights(
        conn,
        words,
        (
            "SELECT CAST(COALESCE(SUM(docs), 0) AS DOUBLE) AS d, \
             CAST(COALESCE(SUM(total_len), 0) AS DOUBLE) AS l FROM agcore_item_stats",
            Vec::new(),
        ),
        "agcore_items",
    )
    .await?
    else {
        return Ok(Vec::new());
    };
    let cond = Where::of(&options.filter);
    let mut params = w.params();
    params.push(Value::from(terms::any_of(&w.words)));
    params.extend(cond.params.iter().cloned());
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
             SELECT c.doc, c.id, c.score FROM (
                 SELECT i.doc, i.id, {score} AS score FROM agcore_items i
                 WHERE MATCH(i.terms) AGAINST (? IN BOOLEAN MODE) AND {filter}
             ) c
             WHERE ? IS NULL OR c.score >= ?
             ORDER BY c.score DESC, c.id {limit}
         ) s JOIN agcore_items i ON i.doc = s.doc
         ORDER BY s.score DESC, i.id",
        score = w.score_sql("i.terms", "i.len"),
        filter = cond.sql,
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
