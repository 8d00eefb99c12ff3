//! Scoped BM25 search: candidates from the `FULLTEXT` index on the query's
//! words prefixed by the scope (so only the scope's entries match), scored
//! in SQL with the scope's own statistics (entries, archived included, and
//! their mean length), each word's document frequency kept by the writers
//! ([`super::df`]), FTS5's idf and `k1 = 1.2`, `b = 0.75`, as the SQLite
//! backend ranks; ties by id.
//!
//! Only the words that can change the top results are matched
//! ([`MaxScorePlan`]): a word in most of the scope's entries costs the
//! `FULLTEXT` index a row per entry, and its bound is too small to lift an
//! entry that holds no rarer word into the results. At most three
//! statements (the third, when needed, matches every word); the results are
//! the exhaustive search's. The scores are one flat expression per
//! candidate ([`crate::bm25`]). Unlike the store's, this search never scans
//! ([`agcore_search::pruning::AccessCost`]): reading a scope's entries through its index cost
//! more than the `FULLTEXT` index even for its most frequent words.

use agcore_memory::long_term::columns::best_first;
use agcore_memory::long_term::sql::{ENTRY_COLUMNS, ENTRY_TYPES, archived_sql};
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use agcore_search::collection::found_terms;
use agcore_search::pruning::{MaxScorePlan, Rounds};
use agcore_search::{Bm25, capped_query_terms};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::df;
use super::rows::entry_from_row;
use super::scopes::scope_params;
use crate::bm25;
use crate::error::Result;
use crate::row::take;
use crate::terms;

/// A scope's row id and BM25 statistics (entries, total length).
struct ScopeStats {
    id: i64,
    docs: f64,
    total_len: f64,
}

async fn scope_stats(conn: &mut Conn, scope: &MemoryScope) -> Result<Option<ScopeStats>> {
    let found: Option<(i64, f64, f64)> = conn
        .exec_first(
            "SELECT id, CAST(docs AS DOUBLE), CAST(total_len AS DOUBLE) FROM agcore_lt_scopes
             WHERE agent_name = ? AND user_id = ?",
            Params::Positional(scope_params(scope).to_vec()),
        )
        .await?;
    Ok(found.map(|(id, docs, total_len)| ScopeStats {
        id,
        docs,
        total_len,
    }))
}

/// The scope's top `request.limit` entries for `query`; `min_saved` is the
/// fewest rows a round of its own must leave out ([`MaxScorePlan::new`]).
pub(crate) async fn search(
    conn: &mut Conn,
    scope: &MemoryScope,
    query: &str,
    (request, min_saved): (&SearchRequest, u64),
) -> Result<Vec<ScoredEntry>> {
    let tokens = capped_query_terms(query);
    if tokens.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let Some(stats) = scope_stats(conn, scope).await? else {
        return Ok(Vec::new());
    };
    let all = terms::words(&format!("s{}", stats.id), &tokens);
    let all_dfs = df::lookup(conn, &all).await?;
    let found = found_terms(all.into_iter().zip(all_dfs), stats.docs, Bm25::fts5_idf);
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let (words, dfs, idfs) = (found.terms, found.dfs, found.idfs);
    let plan = MaxScorePlan::of_idfs(&idfs, &dfs, min_saved, request.limit);
    let mut rounds = Rounds::new(&plan, request.limit);
    loop {
        let matched = rounds.matched(&words);
        let hits = scored(conn, &stats, (&words, &idfs), &matched, request).await?;
        if rounds.settled(hits.len(), hits.last().map(|h| h.score), None) {
            return Ok(hits);
        }
    }
}

/// The top `request.limit` entries among those holding any of `matched`,
/// scored with every word of `words` (FTS5 idfs `idfs`).
async fn scored(
    conn: &mut Conn,
    stats: &ScopeStats,
    (words, idfs): (&[String], &[f64]),
    matched: &[String],
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let own = bm25::Field::new("m.terms", "m.len", (stats.total_len, stats.docs), 1.0);
    let (score, mut params) = bm25::score(words, idfs, &[own]);
    // Parameters in the order their `?` appear in the statement below.
    let ty = request
        .memory_type
        .map_or(Value::NULL, |t| Value::from(t.as_str()));
    params.push(Value::from(terms::any_of(matched)));
    params.push(Value::Int(stats.id));
    params.push(ty.clone());
    params.push(ty);
    params.push(Value::Int(i64::try_from(request.limit).unwrap_or(i64::MAX)));
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, s.score FROM (
             SELECT m.id, {score} AS score FROM agcore_lt_entries m
             WHERE MATCH(m.terms) AGAINST (? IN BOOLEAN MODE) AND m.scope_id = ?
                 AND (? IS NULL OR m.memory_type = ?) AND {archived}
             ORDER BY score DESC, m.id LIMIT ?
         ) s JOIN agcore_lt_entries m ON m.id = s.id",
        archived = archived_sql(request.archived, "m"),
    );
    let found: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
    let mut hits = found
        .into_iter()
        .map(|mut row| {
            let score: f64 = take(&mut row, ENTRY_TYPES.len())?;
            Ok(ScoredEntry {
                entry: entry_from_row(&mut row)?,
                score,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Sorted here into the derived table's order (score descending, ties by
    // id), which the join does not keep. An outer `ORDER BY` over the join
    // sorted the entries' rows, `LONGBLOB` columns included, and when the
    // server read the join from the outer table first it did so in an
    // on-disk temporary table (20 of the integration suite's long-term
    // searches did).
    best_first(&mut hits);
    Ok(hits)
}
