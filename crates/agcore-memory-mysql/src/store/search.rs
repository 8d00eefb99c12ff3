//! BM25 search in the server: candidates from the `FULLTEXT` index
//! (`MATCH … AGAINST (… IN BOOLEAN MODE)`), scored in SQL with the same
//! formula and statistics as the SQLite backend (see [`crate::bm25`]), ties
//! broken by id. With a context field the candidates also come from the
//! fields' `FULLTEXT` index and are scored with BM25F, as the
//! other stores score them.
//!
//! The collection statistics and each word's document frequency (kept by
//! the writers, `super::df`) are read first, in one statement; then only
//! the words that can change the top results are matched
//! ([`MaxScorePlan`]), and every candidate is scored with every word. A
//! word in most items costs the `FULLTEXT` index a row per item, and its
//! bound is too small to lift an item holding no rarer word into the
//! results. At most three searching statements (the third, when needed,
//! matches every word); the results are the exhaustive search's. Without
//! a context field, when a round's words are in so many items that reading
//! every row is estimated cheaper than the index ([`AccessCost`]), one
//! scan for every word settles the search instead.

use agcore_memory::{ScoredItem, SearchOptions};
use agcore_search::collection::found_terms;
use agcore_search::doc_freq::in_order;
use agcore_search::pruning::{AccessCost, MaxScorePlan, Rounds};
use agcore_search::{Bm25, capped_query_terms};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Value};

use super::filter::Where;
use super::rows::{ITEM_COLUMNS, item_from_row};
use crate::bm25;
use crate::error::Result;
use crate::row::{sort_best_first, take};
use crate::terms;
use agcore_memory::sql_store::best_hits;

/// The statistics a search scores with: items and their total length,
/// items in a sequence and their total field length, and the document
/// frequency of each query word and its idf.
struct Stats {
    docs: f64,
    total_len: f64,
    grouped: f64,
    context_len: f64,
    dfs: Vec<f64>,
    idfs: Vec<f64>,
}

/// `(d, l, g, cl, word, df)`: the statistics, and a word's frequency if
/// it has a row.
type StatsRow = (f64, f64, f64, f64, Option<String>, Option<i64>);

/// Reads the statistics for `words` in one statement.
async fn stats(conn: &mut Conn, words: &[String]) -> Result<Stats> {
    let marks = vec!["?"; words.len()].join(", ");
    let sql = format!(
        "SELECT s.d, s.l, c.g, c.cl, w.word, w.df FROM
             (SELECT CAST(COALESCE(SUM(docs), 0) AS DOUBLE) AS d,
                     CAST(COALESCE(SUM(total_len), 0) AS DOUBLE) AS l FROM agcore_item_stats) s
         CROSS JOIN
             (SELECT CAST(COALESCE(SUM(grouped), 0) AS DOUBLE) AS g,
                     CAST(COALESCE(SUM(context_len), 0) AS DOUBLE) AS cl FROM agcore_context_stats) c
         LEFT JOIN (SELECT word, df FROM {table} WHERE word IN ({marks})) w ON TRUE",
        table = super::df::TABLE.name,
    );
    let params: Vec<Value> = words.iter().map(|w| Value::from(w.as_str())).collect();
    let rows: Vec<StatsRow> = conn.exec(sql, Params::Positional(params)).await?;
    // Every row holds the same statistics (a cross join).
    let (docs, total_len, grouped, context_len) =
        (rows.first()).map_or((0.0, 0.0, 0.0, 0.0), |r| (r.0, r.1, r.2, r.3));
    let found = rows.into_iter().filter_map(|(.., w, df)| Some((w?, df?)));
    Ok(Stats {
        docs,
        total_len,
        grouped,
        context_len,
        dfs: in_order(words, found),
        idfs: Vec::new(),
    })
}

/// The candidates' scores: a `SELECT` of `doc, id, keep, score` over the
/// candidates holding any of `matched` (found in the `FULLTEXT` indexes, or
/// with `scan` and no context field by a scan), scored with every word of
/// `words`, `keep` being `filter`; and its parameters after the filter's.
fn scored(
    (words, matched, scan): (&[String], &[String], bool),
    stats: &Stats,
    filter: &str,
    weight: f64,
) -> (String, Vec<Value>) {
    let idfs = &stats.idfs;
    let own = bm25::Field::new("i.terms", "i.len", (stats.total_len, stats.docs), 1.0);
    if weight > 0.0 {
        let context = bm25::Field::new(
            "COALESCE(x.context_terms, '')",
            "COALESCE(x.context_len, 0)",
            (stats.context_len, stats.grouped),
            weight,
        );
        let (score, mut params) = bm25::score(words, idfs, &[own, context]);
        let against = Value::from(terms::any_of(matched));
        params.extend([against.clone(), against]);
        let sql = format!(
            "SELECT i.doc, i.id, ({filter}) AS keep, {score} AS score FROM
                 (SELECT doc FROM agcore_items WHERE MATCH(terms) AGAINST (? IN BOOLEAN MODE)
                  UNION
                  SELECT doc FROM agcore_item_context
                  WHERE MATCH(context_terms) AGAINST (? IN BOOLEAN MODE)) u
             JOIN agcore_items i ON i.doc = u.doc
             LEFT JOIN agcore_item_context x ON x.doc = u.doc"
        );
        return (sql, params);
    }
    let (score, mut params) = bm25::score(words, idfs, &[own]);
    let matching = if scan {
        params.extend(terms::any_word_params(matched));
        terms::any_word_sql("i.terms", matched.len())
    } else {
        params.push(Value::from(terms::any_of(matched)));
        "MATCH(i.terms) AGAINST (? IN BOOLEAN MODE)".to_owned()
    };
    let sql = format!(
        "SELECT i.doc, i.id, ({filter}) AS keep, {score} AS score FROM agcore_items i
         WHERE {matching}"
    );
    (sql, params)
}

/// The top `options.limit` items for `query`, best first; `weight` is the
/// context field's (0: none), `min_saved` the fewest rows a round of its
/// own must leave out ([`MaxScorePlan::new`]).
pub(crate) async fn search(
    conn: &mut Conn,
    query: &str,
    options: &SearchOptions,
    (weight, min_saved): (f64, u64),
) -> Result<Vec<ScoredItem>> {
    let all = terms::words("", &capped_query_terms(query));
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let mut stats = stats(conn, &all).await?;
    let found = found_terms(
        all.into_iter().zip(std::mem::take(&mut stats.dfs)),
        stats.docs,
        Bm25::idf,
    );
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let words = found.terms;
    (stats.dfs, stats.idfs) = (found.dfs, found.idfs);
    // No item in a sequence: every context field is empty, and BM25F is
    // BM25 (one `FULLTEXT` index to match instead of two).
    let weight = if stats.grouped > 0.0 { weight } else { 0.0 };
    let plan = MaxScorePlan::of_idfs(&stats.idfs, &stats.dfs, min_saved, options.limit);
    let mut rounds = Rounds::new(&plan, options.limit);
    let cost = AccessCost::INNODB_FULLTEXT;
    loop {
        // A scan for every word costs little more than for a few: when it
        // is cheaper than this round's index reads, it settles the search.
        // Not with the context field: joining each item's field row and
        // looking through its longer text made scans slower than the
        // indexes in the context bench (search p50 1.6 → 4.5 ms).
        let postings = plan.matched_rows(rounds.essential());
        if weight == 0.0 && cost.scan_is_cheaper(stats.docs, words.len(), postings) {
            return run(conn, (&words, &words, true), &stats, options, weight).await;
        }
        let matched = rounds.matched(&words);
        let hits = run(conn, (&words, &matched, false), &stats, options, weight).await?;
        if rounds.settled(hits.len(), hits.last().map(|h| h.score), options.min_score) {
            return Ok(hits);
        }
    }
}

/// The top `options.limit` items among the candidates holding any of
/// `matched`, scored with every word of `words`.
async fn run(
    conn: &mut Conn,
    source: (&[String], &[String], bool),
    stats: &Stats,
    options: &SearchOptions,
    weight: f64,
) -> Result<Vec<ScoredItem>> {
    let cond = Where::of(&options.filter);
    let (scored, scored_params) = scored(source, stats, &cond.sql, weight);
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
             {scored}
             HAVING keep AND (? IS NULL OR score >= ?)
             ORDER BY score DESC, i.id {limit}
         ) s JOIN agcore_items i ON i.doc = s.doc"
    );
    let mut rows: Vec<Row> = conn.exec(sql, Params::Positional(params)).await?;
    sort_best_first(&mut rows, 5, 0);
    best_hits(rows, (options, cond.exact), item_from_row, |row| {
        take(row, 5)
    })
}
