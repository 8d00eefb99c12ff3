//! Exact BM25 (long-term) and BM25F (store) top-k over the impact-ordered
//! index of [`super::impact`]: the search itself is
//! [`agcore_search::impact::top_k`]; this module reads what it asks for —
//! statistics, runs (short lists whole, longer ones streamed run by run),
//! held postings — from the index tables.

mod preload;
mod run;

use crate::error::{Result, SqliteError};

use agcore_search::impact::topk::{
    HeldPostings, Run, TopK, WeighedTerms, open_run, open_short_terms,
};
use agcore_search::impact::{Scorer, decode_postings};
use rusqlite::{CachedStatement, Connection, params};

use super::impact::{TermStats, scope_stats, term_stats};
pub(crate) use agcore_search::impact::{Fetched, Hit, Ranking};
use preload::whole_term;
use run::Blocks;

/// One top-k search of one scope.
pub(crate) struct TopKQuery<'a> {
    pub(crate) scope: i64,
    /// Distinct query terms, in query order (scores add their parts in this order).
    pub(crate) terms: &'a [String],
    pub(crate) limit: usize,
    pub(crate) min_score: Option<f64>,
    /// Leading tokens of a `terms` column that are not document terms.
    pub(crate) skip: usize,
    /// Whether the tie-break key orders like the document number (enables
    /// the early stop inside a band of equal scores).
    pub(crate) key_is_doc: bool,
    /// How terms are weighed.
    pub(crate) ranking: Ranking,
}

/// The exact top-`limit` of `query`, best first (score desc, key asc).
/// `fetch` reads a document by number; `None` drops it (filtered out).
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError), or what `fetch` returns.
pub(crate) fn top_k<K: Ord>(
    conn: &Connection,
    query: &TopKQuery<'_>,
    fetch: &mut dyn FnMut(i64) -> Result<Option<Fetched<K>>>,
) -> Result<Vec<Hit<K>>> {
    let stats = scope_stats(conn, query.scope)?;
    if stats.docs <= 0.0 || query.limit == 0 {
        return Ok(Vec::new());
    }
    let scorer = Scorer::new(query.ranking, &stats);
    let weighed = WeighedTerms::read(query.terms, &scorer, stats.docs, |term| {
        term_stats(conn, query.scope, term)
    })?;
    let mut statements = Vec::new();
    let (runs, materialized) = open_runs(
        conn,
        query.scope,
        &weighed.present,
        &scorer,
        &mut statements,
    )?;
    let params = TopK {
        limit: query.limit,
        min_score: query.min_score,
        skip: query.skip,
        key_is_doc: query.key_is_doc,
    };
    let mut load = |term: &str, df: i64| held(conn, query.scope, term, df);
    agcore_search::impact::top_k(
        &params,
        (&weighed, &scorer),
        runs,
        materialized,
        &mut load,
        fetch,
    )
}

/// A run of the index read in order, and the postings of terms read whole.
type OpenRuns<'s> = (Vec<Run<Blocks<'s>>>, Vec<Option<HeldPostings>>);

/// Every run of the `present` terms — short lists whole (one query a term,
/// their postings also held for exact scores), longer ones run by run
/// through `statements`.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError) when the index cannot be read.
fn open_runs<'c, 's>(
    conn: &'c Connection,
    scope: i64,
    present: &[(&str, f64, TermStats)],
    scorer: &Scorer,
    statements: &'s mut Vec<CachedStatement<'c>>,
) -> Result<OpenRuns<'s>> {
    let whole = |term: &str, df: i64| whole_term(conn, scope, term, df);
    let short = open_short_terms(present, scorer, whole, Blocks::held)?;
    let mut runs = short.runs;
    for _ in &short.streamed {
        statements.push(conn.prepare_cached(
            "SELECT len, first_doc, postings FROM bm25_blocks \
             WHERE scope = ?1 AND term = ?2 AND tfb = ?3 ORDER BY len, first_doc",
        )?);
    }
    for (statement, &(t, code)) in statements.iter_mut().zip(&short.streamed) {
        let Some(&(text, idf, stats)) = present.get(t) else {
            continue;
        };
        let rows = Blocks::Rows(statement.query(params![scope, text, code])?);
        runs.push(open_run((t, idf, &stats), code, rows, scorer)?);
    }
    Ok((runs, short.materialized))
}

/// Every posting of `term` (held by `df` documents) in `scope` as
/// `doc → (run code, key length)`, for the search to hold in memory.
///
/// # Errors
/// [`SqliteError`] when the index cannot be read.
fn held(conn: &Connection, scope: i64, term: &str, df: i64) -> Result<HeldPostings, SqliteError> {
    let capacity = usize::try_from(df).unwrap_or(0);
    let mut map = HeldPostings::with_capacity_and_hasher(capacity, Default::default());
    let mut stmt = conn
        .prepare_cached("SELECT tfb, postings FROM bm25_blocks WHERE scope = ?1 AND term = ?2")?;
    let mut rows = stmt.query(params![scope, term])?;
    while let Some(row) = rows.next()? {
        let tfb: u32 = row.get(0)?;
        let blob = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
        for (len, doc) in decode_postings(blob) {
            map.insert(doc, (tfb, len));
        }
    }
    Ok(map)
}
