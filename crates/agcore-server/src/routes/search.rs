//! Search with the score breakdown of every hit ("why recalled"), and stats.

use std::collections::BTreeMap;
use std::sync::Arc;

use agcore::memory::hybrid::Explained;
use agcore::memory::long_term::{
    ArchivedFilter, ListRequest, MemoryEntry, MemoryType, SearchRequest,
};
use axum::Json;
use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};

use super::memories::archived_filter;
use crate::auth::CallerScope;
use crate::{AppState, ServerError};

/// Query of a search: `?q=&limit=&type=&archived=&explain=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SearchQuery {
    /// The query text.
    pub q: String,
    /// Most hits (default 10, at most the server's page limit).
    pub limit: Option<usize>,
    /// Only memories of this type.
    #[serde(rename = "type")]
    #[param(value_type = Option<String>)]
    pub memory_type: Option<MemoryType>,
    /// `exclude` (default), `include` or `only`.
    pub archived: Option<String>,
    /// Also return the candidates that were cut, with the rule that cut them.
    #[serde(default)]
    pub explain: bool,
}

/// Answer of a search.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchResults {
    /// Hits, best first: each memory with its lexical / dense / fused score
    /// breakdown (and, with `explain`, the cut candidates after them).
    #[schema(value_type = Vec<Object>)]
    pub hits: Vec<Explained<MemoryEntry>>,
    /// Why dense search was not used, when hybrid search is configured but failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense_unavailable: Option<String>,
    /// Microseconds spent embedding the query.
    pub embed_micros: u64,
    /// Microseconds spent searching and fusing.
    pub search_micros: u64,
}

/// `GET …/memories/search?q=…`.
#[utoipa::path(get, path = "/v1/memories/search", tag = "memories", params(SearchQuery), responses((status = 200, body = SearchResults), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn search(
    State(state): State<Arc<AppState>>,
    CallerScope(scoped): CallerScope,
    Query(query): Query<SearchQuery>,
) -> Result<Json<SearchResults>, ServerError> {
    let limit = query.limit.unwrap_or(10).clamp(1, state.limits.max_page);
    let mut request =
        SearchRequest::top_k(limit).archived(archived_filter(query.archived.as_deref())?);
    if let Some(kind) = query.memory_type {
        request = request.of_type(kind);
    }
    let report = scoped.search_explained(&query.q, &request).await?;
    let hits = if query.explain {
        report.hits
    } else {
        report
            .hits
            .into_iter()
            .filter(|h| h.breakdown.cut.is_none())
            .collect()
    };
    Ok(Json(SearchResults {
        hits,
        dense_unavailable: report.dense_unavailable,
        embed_micros: report.embed_micros,
        search_micros: report.search_micros,
    }))
}

/// Counts of one scope.
#[derive(Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ScopeStats {
    /// Agent of the scope.
    pub agent: String,
    /// User of the scope.
    pub user: String,
    /// Active memories.
    pub active: usize,
    /// Archived memories.
    pub archived: usize,
    /// Active memories by type.
    pub by_type: BTreeMap<String, usize>,
    /// Active memories at or above the core weight threshold.
    pub core: usize,
    /// The storage backend, e.g. `sqlite`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
}

/// `GET …/memories/stats`.
#[utoipa::path(get, path = "/v1/memories/stats", tag = "memories", responses((status = 200, body = ScopeStats), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn stats(
    State(state): State<Arc<AppState>>,
    CallerScope(scoped): CallerScope,
) -> Result<Json<ScopeStats>, ServerError> {
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    let entries = scoped.list(&request).await?;
    let threshold = scoped.rules().core_threshold;
    let mut stats = ScopeStats {
        agent: scoped.scope().agent().to_owned(),
        user: scoped.scope().user().to_owned(),
        active: 0,
        archived: 0,
        by_type: BTreeMap::new(),
        core: 0,
        backend: state.storage.as_ref().map(|s| s.info().kind.to_owned()),
    };
    for entry in &entries {
        if entry.archived {
            stats.archived += 1;
            continue;
        }
        stats.active += 1;
        *stats
            .by_type
            .entry(entry.memory_type.as_str().to_owned())
            .or_default() += 1;
        if entry.weight >= threshold {
            stats.core += 1;
        }
    }
    Ok(Json(stats))
}
