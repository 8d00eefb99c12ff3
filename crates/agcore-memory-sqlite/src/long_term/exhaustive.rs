//! The exhaustive BM25 scan of one scope (statistics counted from the rows,
//! no index): the reference the pruned [`super::search`] is checked and
//! measured against. Compiled with the `testkit` feature only.

use agcore_memory::long_term::sql::row_by_row_maintenance;
use agcore_memory::long_term::{MemoryScope, ScoredEntry, SearchRequest};
use rusqlite::{Connection, params};

use super::rows::SCOPE_TOKENS;
use super::search::{archived_sql, load, query_terms};
use crate::error::Result;
use agcore_search::impact::{FieldDoc, Hit, Ranking, exhaustive as score_every};

/// BM25 over every entry of `scope` (a scan, no index): the reference the
/// pruned [`super::search::search`] equals, with statistics counted from the rows.
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn exhaustive(
    conn: &Connection,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>> {
    let terms = query_terms(query);
    if terms.is_empty() || request.limit == 0 {
        return Ok(Vec::new());
    }
    let ty = request.memory_type.map(|t| t.as_str());
    let wanted = format!(
        "(?3 IS NULL OR m.type = ?3) AND {}",
        archived_sql(request.archived)
    );
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.id, m.terms, {wanted} FROM memory m WHERE m.agent_name = ?1 AND m.user_id = ?2"
    ))?;
    let docs: Vec<(i64, String, bool)> = stmt
        .query_map(params![scope.agent(), scope.user(), ty], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    let fields: Vec<FieldDoc<'_>> = docs
        .iter()
        .map(|(id, terms, _)| FieldDoc::plain(*id, terms))
        .collect();
    let ranking = (Ranking::Fts5, SCOPE_TOKENS, None);
    let wanted = |i: usize| docs.get(i).is_some_and(|d| d.2);
    let mut hits: Vec<Hit<i64>> = score_every(&fields, &terms, ranking, wanted)
        .into_iter()
        .filter_map(|(i, score)| {
            let id = docs.get(i)?.0;
            Some(Hit {
                key: id,
                doc: id,
                score,
            })
        })
        .collect();
    hits.sort();
    hits.truncate(request.limit);
    load(conn, hits)
}

/// The references the driver's own paths are checked and measured against
/// (`testkit` feature; reach them with [`SqlLongTerm::driver`](agcore_memory::long_term::sql::SqlLongTerm::driver)).
impl super::SqliteLongTermDriver {
    /// BM25 over every entry of `scope` by a scan (statistics counted from
    /// the rows, no index): the exhaustive reference that the pruned
    /// search equals (same entries and order, scores up to float rounding)
    /// and is measured against. `O(entries of the scope)`.
    ///
    /// # Errors
    /// [`MemoryError::Storage`](agcore_memory::MemoryError::Storage).
    #[doc(hidden)]
    pub async fn exhaustive_search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> std::result::Result<Vec<ScoredEntry>, agcore_memory::MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.db
            .read(move |c| exhaustive(c, &scope, &query, &request))
            .await
    }

    /// The row-by-row maintenance of earlier releases (every active entry
    /// loaded, aged and stored back: the provided
    /// [`SqlDriver::maintenance`](agcore_memory::long_term::sql::SqlDriver::maintenance) the other SQL drivers run): the reference
    /// the set-based maintenance is checked and measured against.
    ///
    /// # Errors
    /// [`MemoryError::Storage`](agcore_memory::MemoryError::Storage).
    #[doc(hidden)]
    pub async fn maintenance_row_by_row(
        &self,
        scope: &MemoryScope,
        rules: &agcore_memory::long_term::WeightRules,
        now: chrono::DateTime<chrono::Utc>,
        purge_before: chrono::DateTime<chrono::Utc>,
    ) -> std::result::Result<agcore_memory::long_term::MaintenanceReport, agcore_memory::MemoryError>
    {
        row_by_row_maintenance(self, scope, rules, now, purge_before).await
    }
}
