//! Memories of one scope: list, get, add, update, delete, archive, restore, weight.

use std::sync::Arc;

use agcore::memory::long_term::{
    ArchivedFilter, ListOrder, ListRequest, MemoryEntry, MemoryType, MemoryUpdate, NewMemory,
};
use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::auth::{CallerScope, MemoryId};
use crate::{AppState, ServerError};

/// Query of a listing: `?type=&archived=&min_weight=&order=&offset=&limit=`.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only memories of this type.
    #[serde(rename = "type")]
    #[param(value_type = Option<String>)]
    pub memory_type: Option<MemoryType>,
    /// `exclude` (default), `include` or `only`.
    pub archived: Option<String>,
    /// Only memories with at least this weight.
    pub min_weight: Option<f64>,
    /// `updated` (default), `weight` or `created`.
    pub order: Option<String>,
    /// Memories to skip (default 0).
    pub offset: Option<usize>,
    /// Memories to return (default 50, at most the server's page limit).
    pub limit: Option<usize>,
}

/// A page of memories.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MemoryPage {
    /// The memories of the page.
    #[schema(value_type = Vec<Object>)]
    pub memories: Vec<MemoryEntry>,
    /// The `offset` of the next page, absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// Parses an `archived` filter value.
///
/// # Errors
/// [`ServerError::Invalid`] for another value.
pub fn archived_filter(value: Option<&str>) -> Result<ArchivedFilter, ServerError> {
    match value.unwrap_or("exclude") {
        "exclude" => Ok(ArchivedFilter::Exclude),
        "include" => Ok(ArchivedFilter::Include),
        "only" => Ok(ArchivedFilter::Only),
        other => Err(ServerError::Invalid(format!(
            "archived must be exclude, include or only, not `{other}`"
        ))),
    }
}

fn list_order(value: Option<&str>) -> Result<ListOrder, ServerError> {
    match value.unwrap_or("updated") {
        "updated" => Ok(ListOrder::RecentlyUpdated),
        "weight" => Ok(ListOrder::Weight),
        "created" => Ok(ListOrder::Created),
        other => Err(ServerError::Invalid(format!(
            "order must be updated, weight or created, not `{other}`"
        ))),
    }
}

/// `GET …/memories`: a page of the scope's memories.
#[utoipa::path(get, path = "/v1/memories", tag = "memories", params(ListQuery), responses((status = 200, body = MemoryPage), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    CallerScope(scoped): CallerScope,
    Query(query): Query<ListQuery>,
) -> Result<Json<MemoryPage>, ServerError> {
    let offset = query.offset.unwrap_or(0);
    let limit = query.limit.unwrap_or(50).clamp(1, state.limits.max_page);
    let mut request = ListRequest::all()
        .order(list_order(query.order.as_deref())?)
        .limit(offset.saturating_add(limit).saturating_add(1));
    request.archived = archived_filter(query.archived.as_deref())?;
    request.min_weight = query.min_weight;
    if let Some(kind) = query.memory_type {
        request = request.of_type(kind);
    }
    let mut all = scoped.list(&request).await?;
    let more = all.len() > offset.saturating_add(limit);
    let memories: Vec<MemoryEntry> = all.drain(..).skip(offset).take(limit).collect();
    Ok(Json(MemoryPage {
        next_offset: more.then_some(offset + limit),
        memories,
    }))
}

/// Body of `POST …/memories`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMemoryBody {
    /// Memory type (default `user`).
    #[serde(rename = "type", default)]
    #[schema(value_type = Option<String>)]
    pub memory_type: Option<MemoryType>,
    /// Title (default: the first words of the content).
    #[serde(default)]
    pub name: Option<String>,
    /// The text.
    pub content: String,
    /// One-line description.
    #[serde(default)]
    pub description: Option<String>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Initial weight.
    #[serde(default)]
    pub weight: Option<f64>,
    /// Free metadata; `source` defaults to `"http api"`.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
}

/// Answer of a save.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Saved {
    /// `false` when the scope already held the same text (that memory was updated).
    pub created: bool,
    /// The stored memory.
    #[schema(value_type = Object)]
    pub memory: MemoryEntry,
}

fn default_name(content: &str) -> String {
    content
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `POST …/memories`: saves a memory (same text: the existing one is updated).
#[utoipa::path(post, path = "/v1/memories", tag = "memories", request_body = NewMemoryBody, responses((status = 201, description = "Created.", body = Saved), (status = 200, description = "The scope held the same text; that memory was updated.", body = Saved), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn add(
    CallerScope(scoped): CallerScope,
    Json(body): Json<NewMemoryBody>,
) -> Result<(StatusCode, Json<Saved>), ServerError> {
    let name = body
        .name
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| default_name(&body.content));
    let mut metadata = body.metadata;
    metadata
        .entry("source")
        .or_insert_with(|| Value::from("http api"));
    let mut new = NewMemory::new(
        body.memory_type.unwrap_or(MemoryType::User),
        name,
        body.content,
    )
    .with_tags(body.tags)
    .with_metadata(metadata);
    if let Some(description) = body.description {
        new = new.with_description(description);
    }
    if let Some(weight) = body.weight {
        new = new.with_weight(weight);
    }
    let outcome = scoped.save(new).await?;
    let status = if outcome.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(Saved {
            created: outcome.created,
            memory: outcome.entry,
        }),
    ))
}

fn not_found(id: i64) -> ServerError {
    ServerError::NotFound(format!("no memory with id {id} in this scope"))
}

/// `GET …/memories/{id}`.
#[utoipa::path(get, path = "/v1/memories/{id}", tag = "memories", params(("id" = i64, Path, description = "The memory id.")), responses((status = 200, description = "The memory.", body = serde_json::Value), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn get(
    CallerScope(scoped): CallerScope,
    MemoryId(id): MemoryId,
) -> Result<Json<MemoryEntry>, ServerError> {
    scoped.get(id).await?.map(Json).ok_or_else(|| not_found(id))
}

/// Body of `PATCH …/memories/{id}`: the fields to change.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateBody {
    /// New type.
    #[serde(rename = "type", default)]
    #[schema(value_type = Option<String>)]
    pub memory_type: Option<MemoryType>,
    /// New title.
    pub name: Option<String>,
    /// New text (the old one is kept in the history).
    pub content: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New tags.
    pub tags: Option<Vec<String>>,
    /// New weight.
    pub weight: Option<f64>,
    /// New metadata.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
}

/// `PATCH …/memories/{id}`.
#[utoipa::path(patch, path = "/v1/memories/{id}", tag = "memories", params(("id" = i64, Path, description = "The memory id.")), request_body = UpdateBody, responses((status = 200, description = "The changed memory.", body = serde_json::Value), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn update(
    CallerScope(scoped): CallerScope,
    MemoryId(id): MemoryId,
    Json(body): Json<UpdateBody>,
) -> Result<Json<MemoryEntry>, ServerError> {
    let mut update = MemoryUpdate::new();
    update.memory_type = body.memory_type;
    update.name = body.name;
    update.content = body.content;
    update.description = body.description;
    update.tags = body.tags;
    update.weight = body.weight;
    update.metadata = body.metadata;
    change(&scoped, id, update).await
}

async fn change(
    scoped: &agcore::memory::long_term::ScopedMemory,
    id: i64,
    update: MemoryUpdate,
) -> Result<Json<MemoryEntry>, ServerError> {
    match scoped.update(id, update).await {
        Ok(entry) => Ok(Json(entry)),
        Err(agcore::memory::MemoryError::NotFound(_)) => Err(not_found(id)),
        Err(e) => Err(e.into()),
    }
}

/// `DELETE …/memories/{id}`: 204, or 404 when the scope has no such memory.
#[utoipa::path(delete, path = "/v1/memories/{id}", tag = "memories", params(("id" = i64, Path, description = "The memory id.")), responses((status = 204, description = "Deleted."), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn delete(
    CallerScope(scoped): CallerScope,
    MemoryId(id): MemoryId,
) -> Result<StatusCode, ServerError> {
    if scoped.delete(id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(not_found(id))
    }
}

/// `POST …/memories/{id}/archive`.
#[utoipa::path(post, path = "/v1/memories/{id}/archive", tag = "memories", params(("id" = i64, Path, description = "The memory id.")), responses((status = 200, description = "The archived memory.", body = serde_json::Value), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn archive(
    CallerScope(scoped): CallerScope,
    MemoryId(id): MemoryId,
) -> Result<Json<MemoryEntry>, ServerError> {
    change(&scoped, id, MemoryUpdate::new().archived(true)).await
}

/// `POST …/memories/{id}/restore`.
#[utoipa::path(post, path = "/v1/memories/{id}/restore", tag = "memories", params(("id" = i64, Path, description = "The memory id.")), responses((status = 200, description = "The restored memory.", body = serde_json::Value), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn restore(
    CallerScope(scoped): CallerScope,
    MemoryId(id): MemoryId,
) -> Result<Json<MemoryEntry>, ServerError> {
    match scoped.restore(id).await {
        Ok(entry) => Ok(Json(entry)),
        Err(agcore::memory::MemoryError::NotFound(_)) => Err(not_found(id)),
        Err(e) => Err(e.into()),
    }
}

/// Body of `PUT …/memories/{id}/weight`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WeightBody {
    /// The new weight.
    pub weight: f64,
}

/// `PUT …/memories/{id}/weight`.
#[utoipa::path(put, path = "/v1/memories/{id}/weight", tag = "memories", params(("id" = i64, Path, description = "The memory id.")), request_body = WeightBody, responses((status = 200, description = "The memory with its new weight.", body = serde_json::Value), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn weight(
    CallerScope(scoped): CallerScope,
    MemoryId(id): MemoryId,
    Json(body): Json<WeightBody>,
) -> Result<Json<MemoryEntry>, ServerError> {
    change(&scoped, id, MemoryUpdate::new().weight(body.weight)).await
}
