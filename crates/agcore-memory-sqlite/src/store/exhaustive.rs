//! The exhaustive reference search of [`SqliteStore`] (`testkit` feature):
//! FTS5 `MATCH` of the query's keywords ranked by `bm25()` over every match,
//! which the pruned
//! [`MemoryStore::search`](agcore_memory::MemoryStore::search) is tested and
//! measured against.
//! The full-text query is built from extracted keywords, each an FTS5 string
//! with `"` doubled, so query syntax in the input is always literal text.

use crate::error::Result;
use rusqlite::Connection;
use rusqlite::types::Value;

use super::SqliteStore;
use super::query::{self, ITEM_COLUMNS, MAX_QUERY_TERMS, SqlFilter, filter_sql};
use agcore_memory::retriever::{unique_index_terms, validate_search_options};
use agcore_memory::{MemoryError, ScoredItem, SearchOptions};

impl SqliteStore {
    /// FTS5 `MATCH` of the query's keywords ranked by `bm25()` over every
    /// match: the exhaustive reference the pruned
    /// [`MemoryStore::search`](agcore_memory::MemoryStore::search) equals
    /// (same hits and order, scores up to float rounding) and is measured
    /// against.
    ///
    /// # Errors
    /// As [`MemoryStore::search`](agcore_memory::MemoryStore::search).
    #[doc(hidden)]
    pub async fn exhaustive_search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> std::result::Result<Vec<ScoredItem>, MemoryError> {
        validate_search_options(options)?;
        let Some(expression) = match_expression(query) else {
            return Ok(Vec::new());
        };
        let filter = &options.filter;
        let plan = SearchPlan {
            expression,
            filter: filter_sql(filter),
            filtered: filter.prefix.is_some()
                || filter.since.is_some()
                || filter.until.is_some()
                || !filter.metadata.is_empty(),
            limit: options.limit,
            min_score: options.min_score,
        };
        self.db.read(move |conn| search(conn, plan)).await
    }
}

/// The FTS5 `MATCH` expression for literal `query` text: its distinct terms
/// ([`unique_index_terms`])
/// (at most [`MAX_QUERY_TERMS`]), each an FTS5 string with `"` doubled, joined
/// by `OR`. `None` when the query has no keywords.
///
/// ```text
/// Rust "NEAR(x)" 记忆系统  →  "rust" OR "near" OR "记忆" OR "忆系" OR "系统"
/// ```
fn match_expression(query: &str) -> Option<String> {
    let terms = unique_index_terms(query);
    if terms.is_empty() {
        return None;
    }
    let quoted: Vec<String> = terms
        .iter()
        .take(MAX_QUERY_TERMS)
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect();
    Some(quoted.join(" OR "))
}

/// One search: the FTS5 expression, the candidate filter, top-k, minimum score.
struct SearchPlan {
    expression: String,
    filter: SqlFilter,
    /// Whether the filter constrains anything (otherwise the fast path applies).
    filtered: bool,
    limit: usize,
    min_score: Option<f64>,
}

/// Runs `plan`: hits best first (score = −bm25, ties by id), at most `limit`,
/// none scoring below `min_score`.
fn search(conn: &Connection, plan: SearchPlan) -> Result<Vec<ScoredItem>> {
    let mut hits = if plan.filtered {
        full(conn, &plan)?
    } else {
        match top_k_first(conn, &plan)? {
            Some(hits) => hits,
            None => full(conn, &plan)?,
        }
    };
    hits.truncate(plan.limit);
    if let Some(min) = plan.min_score {
        // Best first: everything after the first one below the bar is below it too.
        let keep = hits.iter().take_while(|h| h.score >= min).count();
        hits.truncate(keep);
    }
    Ok(hits)
}

/// Unfiltered fast path: FTS5 ranks inside the index (`ORDER BY rank`) and
/// only the best `limit + 1` rows are joined with the items. `None` when the
/// `limit`-th and the next hit tie (the id tie-break then needs every tied
/// row: [`full`] runs instead).
fn top_k_first(conn: &Connection, plan: &SearchPlan) -> Result<Option<Vec<ScoredItem>>> {
    let sql = format!(
        "SELECT {ITEM_COLUMNS}, -f.rank AS score \
         FROM (SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ?1 \
               ORDER BY rank LIMIT ?2) AS f \
         JOIN memory_items i ON i.pk = f.rowid \
         ORDER BY f.rank, i.id"
    );
    let fetch = i64::try_from(plan.limit.saturating_add(1)).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query(rusqlite::params![plan.expression, fetch])?;
    let hits = collect(rows)?;
    if hits.len() > plan.limit {
        let kth = hits.get(plan.limit.saturating_sub(1)).map(|h| h.score);
        let next = hits.get(plan.limit).map(|h| h.score);
        if kth == next {
            return Ok(None);
        }
    }
    Ok(Some(hits))
}

/// Every match passing the filter, joined, sorted by (score desc, id), top `limit`.
fn full(conn: &Connection, plan: &SearchPlan) -> Result<Vec<ScoredItem>> {
    let limit = i64::try_from(plan.limit).unwrap_or(i64::MAX);
    let sql = format!(
        "SELECT {ITEM_COLUMNS}, -bm25(memory_fts) AS score \
         FROM memory_fts JOIN memory_items i ON i.pk = memory_fts.rowid \
         WHERE memory_fts MATCH ? AND {} \
         ORDER BY score DESC, i.id LIMIT {limit}",
        plan.filter.clause
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let params = std::iter::once(Value::Text(plan.expression.clone()))
        .chain(plan.filter.params.iter().cloned());
    let rows = stmt.query(rusqlite::params_from_iter(params))?;
    collect(rows)
}

fn collect(mut rows: rusqlite::Rows<'_>) -> Result<Vec<ScoredItem>> {
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let score: f64 = row.get(5)?;
        if score <= 0.0 {
            continue;
        }
        out.push(ScoredItem {
            item: query::item_from_row(row)?,
            score,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_expression_quotes_every_term() {
        assert_eq!(match_expression("\"a\" AND * -:^").as_deref(), None);
        assert_eq!(
            match_expression("Rust NEAR(x) 记忆系统 rust").as_deref(),
            Some("\"rust\" OR \"near\" OR \"记忆\" OR \"忆系\" OR \"系统\"")
        );
    }

    #[test]
    fn match_expression_is_capped() {
        let query: String = (0..1000).map(|i| format!("w{i} ")).collect();
        let expr = match_expression(&query).unwrap();
        assert_eq!(expr.matches(" OR ").count(), MAX_QUERY_TERMS - 1);
    }
}
