//! The memory browser of one agent and user: filters, search with the score
//! breakdown of each hit, the list, and a form adding a memory.

use std::sync::Arc;

use agcore::memory::long_term::{
    ArchivedFilter, ListOrder, ListRequest, MemoryType, NewMemory, ScopedMemory, SearchRequest,
};
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use minijinja::context;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::page::{PageError, Web};
use super::render::encode;
use super::render::ser;
use super::render::templates;
use super::session::Session;
use super::views::{HitView, MemoryView, ScopeView};
use crate::ServerError;
use crate::routes::memories::archived_filter;

/// Memories per page of the list.
const PAGE: usize = 50;

/// The filters and search of the browser (`GET` query).
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct Filters {
    #[serde(default, rename = "type")]
    memory_type: String,
    #[serde(default)]
    archived: String,
    #[serde(default)]
    min_weight: String,
    #[serde(default)]
    order: String,
    #[serde(default)]
    offset: usize,
    #[serde(default)]
    q: String,
    #[serde(default, skip_serializing)]
    notice: String,
}

/// The browser's URL for `agent` / `user`.
pub fn scope_url(agent: &str, user: &str) -> String {
    format!("/ui/memories/{}/{}", encode(agent), encode(user))
}

fn notice_text(code: &str) -> &'static str {
    match code {
        "added" => "Memory saved.",
        "updated" => "The existing memory with the same text was updated.",
        "deleted" => "Memory deleted.",
        _ => "",
    }
}

fn memory_type(text: &str) -> Result<Option<MemoryType>, ServerError> {
    match text {
        "" => Ok(None),
        other => Ok(Some(MemoryType::parse(other)?)),
    }
}

fn list_request(filters: &Filters) -> Result<ListRequest, ServerError> {
    let order = match filters.order.as_str() {
        "" | "updated" => ListOrder::RecentlyUpdated,
        "weight" => ListOrder::Weight,
        "created" => ListOrder::Created,
        other => return Err(ServerError::Invalid(format!("unknown order `{other}`"))),
    };
    let mut request = ListRequest::all()
        .order(order)
        .limit(filters.offset.saturating_add(PAGE + 1));
    request.archived = archived_filter(Some(filters.archived.as_str()).filter(|a| !a.is_empty()))?;
    request.min_weight = match filters.min_weight.trim() {
        "" => None,
        w => Some(w.parse::<f64>().map_err(|_| {
            ServerError::Invalid("the minimum weight is a number, e.g. 0.5".into())
        })?),
    };
    if let Some(kind) = memory_type(&filters.memory_type)? {
        request = request.of_type(kind);
    }
    Ok(request)
}

async fn search(
    scoped: &ScopedMemory,
    filters: &Filters,
) -> Result<(Vec<HitView>, Option<String>), ServerError> {
    let mut request = SearchRequest::top_k(10).archived(archived_filter(
        Some(filters.archived.as_str()).filter(|a| !a.is_empty()),
    )?);
    if let Some(kind) = memory_type(&filters.memory_type)? {
        request = request.of_type(kind);
    }
    let report = scoped.search_explained(filters.q.trim(), &request).await?;
    let hits = report
        .hits
        .iter()
        .filter(|h| h.breakdown.cut.is_none())
        .map(HitView::from)
        .collect();
    Ok((hits, report.dense_unavailable))
}

/// `GET /ui/memories/{agent}/{user}`.
pub async fn list(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user)): Path<(String, String)>,
    Query(filters): Query<Filters>,
) -> Result<Response, PageError> {
    let scope = session.scope(&agent, &user)?;
    let scoped = web.app.memory.scoped(scope.clone());
    let mut all = scoped.list(&list_request(&filters)?).await?;
    let more = all.len() > filters.offset.saturating_add(PAGE);
    let memories: Vec<MemoryView> = all
        .drain(..)
        .skip(filters.offset)
        .take(PAGE)
        .map(|e| MemoryView::from(&e))
        .collect();
    let (hits, dense_unavailable) = if filters.q.trim().is_empty() {
        (Vec::new(), None)
    } else {
        search(&scoped, &filters).await?
    };
    let mut counts = ListRequest::all();
    counts.archived = ArchivedFilter::Include;
    let stored = scoped.list(&counts).await?;
    let archived = stored.iter().filter(|e| e.archived).count();
    let hybrid = web.app.dense.is_some();
    let ctx = context! {
        scope => ser(&ScopeView::from(&scope)),
        base => scope_url(&agent, &user),
        filters => ser(&filters),
        searched => !filters.q.trim().is_empty(),
        hits => ser(&hits), dense_unavailable, hybrid, memories => ser(&memories),
        next_offset => more.then_some(filters.offset + PAGE),
        active => stored.len() - archived, archived,
        types => MemoryType::ALL.map(MemoryType::as_str),
        notice => notice_text(&filters.notice),
    };
    Ok(templates()
        .page("memories.html", &session, ctx)?
        .into_response())
}

/// The add form's fields.
#[derive(Debug, Deserialize)]
pub struct AddForm {
    csrf: String,
    #[serde(default, rename = "type")]
    memory_type: String,
    #[serde(default)]
    name: String,
    content: String,
    #[serde(default)]
    tags: String,
    #[serde(default)]
    weight: String,
}

/// Comma-separated tags.
pub fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A weight field.
///
/// # Errors
/// [`ServerError::Invalid`] when it is not a number.
pub fn parse_weight(text: &str) -> Result<Option<f64>, ServerError> {
    match text.trim() {
        "" => Ok(None),
        w => w
            .parse::<f64>()
            .ok()
            .filter(|w| w.is_finite())
            .map(Some)
            .ok_or_else(|| ServerError::Invalid("a weight is a number, e.g. 1.5".into())),
    }
}

/// `POST /ui/memories/{agent}/{user}`: saves a memory.
pub async fn add(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user)): Path<(String, String)>,
    Form(form): Form<AddForm>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    let scoped = web.app.memory.scoped(session.scope(&agent, &user)?);
    let name = match form.name.trim() {
        "" => form
            .content
            .split_whitespace()
            .take(8)
            .collect::<Vec<_>>()
            .join(" "),
        n => n.to_owned(),
    };
    let mut metadata = Map::new();
    metadata.insert("source".into(), Value::from("web page"));
    let kind = memory_type(&form.memory_type)?.unwrap_or(MemoryType::User);
    let mut new = NewMemory::new(kind, name, form.content)
        .with_tags(split_tags(&form.tags))
        .with_metadata(metadata);
    if let Some(weight) = parse_weight(&form.weight)? {
        new = new.with_weight(weight);
    }
    let outcome = scoped.save(new).await?;
    let notice = if outcome.created { "added" } else { "updated" };
    let target = format!(
        "{}/{}?notice={notice}",
        scope_url(&agent, &user),
        outcome.entry.id
    );
    Ok(Redirect::to(&target).into_response())
}

/// `?user=` of the "open user" form.
#[derive(Debug, Deserialize)]
pub struct OpenUser {
    user: String,
}

/// `GET /ui/memories/{agent}?user=…`: the browser of that user.
pub async fn open_user(
    session: Session,
    Path(agent): Path<String>,
    Query(open): Query<OpenUser>,
) -> Result<Response, PageError> {
    let scope = session.scope(&agent, open.user.trim())?;
    Ok(Redirect::to(&scope_url(scope.agent(), scope.user())).into_response())
}
