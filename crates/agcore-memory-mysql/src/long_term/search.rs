//! Scoped BM25 search: candidates from the `FULLTEXT` index on the query's
//! words prefixed by the scope (so only the scope's entries match), scored
//! in SQL with the scope's own statistics (entries, archived included, and
//! their mean length), FTS5's idf and `k1 = 1.2`, `b = 0.75`, as the SQLite
//! backend ranks; ties by id.

use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::ops::archived_sql;
use super::rows::{self, ENTRY_COLUMNS, ENTRY_WIDTH, entry_from_row};
use crate::error::Result;
use crate::row::take;
use crate::terms::{self, Bm25Sql};

pub(crate) async fn search(
    conn: &mut Conn,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let tokens = terms::query_tokens(query);
    if tokens.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let Some(scope_id) = rows::existing_scope_id(conn, scope).await? else {
        return Ok(Vec::new());
    };
    let words = terms::words(&format!("s{scope_id}"), &tokens);
    let bm25 = Bm25Sql::fts5(words.len());
    // Parameters in the order their `?` appear in the statement below.
    let ty = request
        .memory_type
        .map_or(Value::NULL, |t| Value::from(t.as_str()));
    let mut params = Bm25Sql::tf_params(&words);
    params.push(ty.clone());
    params.push(ty);
    params.push(Value::from(terms::any_of(&words)));
    params.push(Value::Int(scope_id));
    params.push(Value::Int(scope_id));
    params.push(Value::Int(i64::try_from(request.limit).unwrap_or(i64::MAX)));
    // The scope prefix makes the `MATCH` see only this scope's entries, so
    // the document frequencies are the scope's; the type and archive
    // conditions are applied after counting them, as SQLite does.
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, s.score FROM (
             SELECT c.id, {score} AS score FROM (
                 SELECT t.id, t.keep, {dfs} FROM (
                     SELECT m.id, m.len, {tfs},
                         (? IS NULL OR m.memory_type = ?) AND {archived} AS keep
                     FROM agcore_lt_entries m
                     WHERE MATCH(m.terms) AGAINST (? IN BOOLEAN MODE) AND m.scope_id = ?
                 ) t CROSS JOIN {stats}
             ) c
             WHERE c.keep
             ORDER BY score DESC, c.id LIMIT ?
         ) s JOIN agcore_lt_entries m ON m.id = s.id
         ORDER BY s.score DESC, m.id",
        score = bm25.score(),
        dfs = bm25.df_columns(),
        tfs = bm25.tf_columns("m.terms"),
        archived = archived_sql(request.archived),
        stats = Bm25Sql::stats_table(
            "SELECT CAST(docs AS DOUBLE) AS d, CAST(total_len AS DOUBLE) AS l \
             FROM agcore_lt_scopes WHERE id = ?"
        ),
    );
    let found: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
    found
        .into_iter()
        .map(|mut row| {
            let score: f64 = take(&mut row, ENTRY_WIDTH)?;
            Ok(ScoredEntry {
                entry: entry_from_row(&mut row)?,
                score,
            })
        })
        .collect()
}
