//! Scoped BM25 search: candidates from the `FULLTEXT` index on the query's
//! words prefixed by the scope (so only the scope's entries match), scored
//! in SQL with the scope's own statistics (entries, archived included, and
//! their mean length), FTS5's idf and `k1 = 1.2`, `b = 0.75`, as the SQLite
//! backend ranks; ties by id.

use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use agcore_memory::retriever::unique_keywords;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::ops::archived_sql;
use super::rows::{self, ENTRY_COLUMNS, ENTRY_WIDTH, entry_from_row};
use crate::error::Result;
use crate::row::take;
use crate::terms::{self, MAX_QUERY_TERMS};

pub(crate) async fn search(
    conn: &mut Conn,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let mut tokens = unique_keywords(query);
    tokens.truncate(MAX_QUERY_TERMS);
    if tokens.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let Some(scope_id) = rows::existing_scope_id(conn, scope).await? else {
        return Ok(Vec::new());
    };
    let prefix = format!("s{scope_id}");
    let words: Vec<String> = tokens.iter().map(|t| terms::word(&prefix, t)).collect();
    let Some(w) = crate::store::weights(
        conn,
        words,
        (
            "SELECT CAST(docs AS DOUBLE) AS d, CAST(total_len AS DOUBLE) AS l \
             FROM agcore_lt_scopes WHERE id = ?",
            vec![Value::Int(scope_id)],
        ),
        "agcore_lt_entries",
    )
    .await?
    else {
        return Ok(Vec::new());
    };
    let mut params = w.params();
    params.push(Value::from(terms::any_of(&w.words)));
    params.push(Value::Int(scope_id));
    let ty = request
        .memory_type
        .map_or(Value::NULL, |t| Value::from(t.as_str()));
    params.push(ty.clone());
    params.push(ty);
    params.push(Value::Int(i64::try_from(request.limit).unwrap_or(i64::MAX)));
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, s.score FROM (
             SELECT c.id, c.score FROM (
                 SELECT m.id, {score} AS score FROM agcore_lt_entries m
                 WHERE MATCH(m.terms) AGAINST (? IN BOOLEAN MODE) AND m.scope_id = ?
                 AND (? IS NULL OR m.memory_type = ?) AND {archived}
             ) c ORDER BY c.score DESC, c.id LIMIT ?
         ) s JOIN agcore_lt_entries m ON m.id = s.id
         ORDER BY s.score DESC, m.id",
        score = w.score_sql("m.terms", "m.len"),
        archived = archived_sql(request.archived),
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
