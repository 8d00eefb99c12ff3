//! One memory: its text, edit, weight, archive / restore, delete, its usage
//! log and the texts it replaced.

use std::sync::Arc;

use agcore::memory::long_term::{MemoryUpdate, ScopedMemory};
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use minijinja::context;
use serde::{Deserialize, Serialize};

use super::login::TokenOnly;
use super::memories_page::{parse_weight, scope_url, split_tags};
use super::page::{PageError, Web};
use super::render::ser;
use super::render::templates;
use super::session::Session;
use super::views::{MemoryView, ScopeView, UseView, when};
use crate::ServerError;

fn not_found(id: i64) -> PageError {
    ServerError::NotFound(format!("no memory with id {id} for this agent and user")).into()
}

fn open(web: &Web, session: &Session, agent: &str, user: &str) -> Result<ScopedMemory, PageError> {
    Ok(web.app.memory.scoped(session.scope(agent, user)?))
}

/// A replaced text of the memory.
#[derive(Debug, Serialize)]
struct PastView {
    recorded: String,
    reason: String,
    name: String,
    content: String,
}

/// `?notice=` after a change.
#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(default)]
    notice: String,
}

fn notice_text(code: &str) -> &'static str {
    match code {
        "added" => "Memory saved.",
        "updated" => "The existing memory with the same text was updated.",
        "saved" => "Changes saved.",
        "weight" => "Weight changed.",
        "archived" => "Archived: recall skips it until it is restored.",
        "restored" => "Restored: recall finds it again.",
        _ => "",
    }
}

/// `GET /ui/memories/{agent}/{user}/{id}`.
pub async fn show(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user, id)): Path<(String, String, i64)>,
    Query(notice): Query<Notice>,
) -> Result<Response, PageError> {
    let scoped = open(&web, &session, &agent, &user)?;
    let entry = scoped.get(id).await?.ok_or_else(|| not_found(id))?;
    let uses: Vec<UseView> = scoped
        .usage_log(id)
        .await?
        .iter()
        .map(UseView::from)
        .collect();
    let past: Vec<PastView> = scoped
        .history(id)
        .await?
        .iter()
        .map(|h| PastView {
            recorded: when(&h.recorded_at),
            reason: h.reason.as_str().to_owned(),
            name: h.name.clone(),
            content: h.content.clone(),
        })
        .collect();
    let ctx = context! {
        scope => ser(&ScopeView::from(scoped.scope())),
        base => scope_url(&agent, &user),
        memory => ser(&MemoryView::from(&entry)),
        tags => entry.tags.join(", "),
        types => agcore::memory::long_term::MemoryType::ALL.map(|t| t.as_str()),
        uses => ser(&uses), past => ser(&past),
        notice => notice_text(&notice.notice),
    };
    Ok(templates()
        .page("memory.html", &session, ctx)?
        .into_response())
}

async fn change(
    scoped: &ScopedMemory,
    agent: &str,
    user: &str,
    id: i64,
    update: MemoryUpdate,
    notice: &str,
) -> Result<Response, PageError> {
    match scoped.update(id, update).await {
        Ok(_) => Ok(
            Redirect::to(&format!("{}/{id}?notice={notice}", scope_url(agent, user)))
                .into_response(),
        ),
        Err(agcore::memory::MemoryError::NotFound(_)) => Err(not_found(id)),
        Err(e) => Err(e.into()),
    }
}

/// The edit form's fields.
#[derive(Debug, Deserialize)]
pub struct EditForm {
    csrf: String,
    #[serde(rename = "type")]
    memory_type: String,
    name: String,
    #[serde(default)]
    description: String,
    content: String,
    #[serde(default)]
    tags: String,
}

/// `POST …/{id}/edit`: new type, title, description, text, tags (the old
/// text goes to the history).
pub async fn edit(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user, id)): Path<(String, String, i64)>,
    Form(form): Form<EditForm>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    let scoped = open(&web, &session, &agent, &user)?;
    let mut update = MemoryUpdate::new();
    update.memory_type = Some(agcore::memory::long_term::MemoryType::parse(
        &form.memory_type,
    )?);
    update.name = Some(form.name);
    update.description = Some(form.description);
    update.content = Some(form.content);
    update.tags = Some(split_tags(&form.tags));
    change(&scoped, &agent, &user, id, update, "saved").await
}

/// The weight form's fields.
#[derive(Debug, Deserialize)]
pub struct WeightForm {
    csrf: String,
    weight: String,
}

/// `POST …/{id}/weight`.
pub async fn weight(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user, id)): Path<(String, String, i64)>,
    Form(form): Form<WeightForm>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    let scoped = open(&web, &session, &agent, &user)?;
    let weight = parse_weight(&form.weight)?
        .ok_or_else(|| ServerError::Invalid("a weight is a number, e.g. 1.5".into()))?;
    change(
        &scoped,
        &agent,
        &user,
        id,
        MemoryUpdate::new().weight(weight),
        "weight",
    )
    .await
}

/// `POST …/{id}/archive`.
pub async fn archive(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user, id)): Path<(String, String, i64)>,
    Form(form): Form<TokenOnly>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    let scoped = open(&web, &session, &agent, &user)?;
    change(
        &scoped,
        &agent,
        &user,
        id,
        MemoryUpdate::new().archived(true),
        "archived",
    )
    .await
}

/// `POST …/{id}/restore`.
pub async fn restore(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user, id)): Path<(String, String, i64)>,
    Form(form): Form<TokenOnly>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    let scoped = open(&web, &session, &agent, &user)?;
    match scoped.restore(id).await {
        Ok(_) => Ok(Redirect::to(&format!(
            "{}/{id}?notice=restored",
            scope_url(&agent, &user)
        ))
        .into_response()),
        Err(agcore::memory::MemoryError::NotFound(_)) => Err(not_found(id)),
        Err(e) => Err(e.into()),
    }
}

/// `POST …/{id}/delete`: deletes the memory and its usage log.
pub async fn delete(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user, id)): Path<(String, String, i64)>,
    Form(form): Form<TokenOnly>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    let scoped = open(&web, &session, &agent, &user)?;
    if !scoped.delete(id).await? {
        return Err(not_found(id));
    }
    Ok(Redirect::to(&format!("{}?notice=deleted", scope_url(&agent, &user))).into_response())
}
