//! Agents: the list (with the users each agent remembers), create and edit
//! with the memory section (enabled, backend, prefetch count, attachments).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use minijinja::context;
use serde::{Deserialize, Serialize};

use super::agent_form::{AgentForm, MAX_PREFETCH, backend_parts};
use super::page::{PageError, Web};
use super::render::templates;
use super::render::{encode, ser};
use super::session::Session;
use crate::agents::AgentRecord;
use crate::{Grant, ServerError};

#[derive(Debug, Serialize)]
struct AgentRow {
    name: String,
    description: String,
    configured: bool,
    enabled: bool,
    backend: String,
    prefetch_limit: usize,
    attachments: Vec<String>,
    users: Vec<String>,
}

fn backend_label(url: Option<&str>) -> String {
    match backend_parts(url).0 {
        "server" => "the server's storage".into(),
        "mysql" => "MySQL".into(),
        _ => "SQLite (local file)".into(),
    }
}

/// `GET /ui/`: the agents the session may see, each with the users it has memories of.
pub async fn list(State(web): State<Arc<Web>>, session: Session) -> Result<Response, PageError> {
    let mut users: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for scope in web.app.memory.scopes().await? {
        users
            .entry(scope.agent().to_owned())
            .or_default()
            .push(scope.user().to_owned());
    }
    let mut rows: BTreeMap<String, AgentRow> = BTreeMap::new();
    for agent in web.app.agents.list().await {
        rows.insert(agent.name.clone(), row(Some(&agent), &agent.name));
    }
    for name in users.keys() {
        rows.entry(name.clone()).or_insert_with(|| row(None, name));
    }
    if let Grant::Scope(own) = &session.grant {
        rows.retain(|name, _| name == own.agent());
        let mut own_row = rows
            .remove(own.agent())
            .unwrap_or_else(|| row(None, own.agent()));
        own_row.users = vec![own.user().to_owned()];
        rows.insert(own.agent().to_owned(), own_row);
    } else {
        for (name, row) in &mut rows {
            row.users = users.remove(name).unwrap_or_default();
        }
    }
    let agents: Vec<AgentRow> = rows.into_values().collect();
    Ok(templates()
        .page("agents.html", &session, context! { agents => ser(&agents) })?
        .into_response())
}

fn row(agent: Option<&AgentRecord>, name: &str) -> AgentRow {
    let memory = agent.map(|a| a.memory.clone()).unwrap_or_default();
    AgentRow {
        name: name.to_owned(),
        description: agent.map(|a| a.description.clone()).unwrap_or_default(),
        configured: agent.is_some(),
        enabled: memory.enabled,
        backend: backend_label(memory.backend_url.as_deref()),
        prefetch_limit: memory.prefetch_limit,
        attachments: memory.attachments,
        users: Vec::new(),
    }
}

fn admin_only(session: &Session) -> Result<(), ServerError> {
    if session.is_admin() {
        Ok(())
    } else {
        Err(ServerError::Forbidden(
            "only admin keys create or change agents".into(),
        ))
    }
}

fn form_page(
    session: &Session,
    form: &AgentForm,
    new: bool,
    status: StatusCode,
    failed: &str,
) -> Result<Response, PageError> {
    let saved = false;
    let ctx = context! { agent => ser(form), new, failed, saved, max_prefetch => MAX_PREFETCH };
    Ok((status, templates().page("agent.html", session, ctx)?).into_response())
}

/// `GET /ui/agents/new`.
pub async fn new_form(session: Session) -> Result<Response, PageError> {
    admin_only(&session)?;
    let form = AgentForm::from_record(&AgentRecord::named(""));
    form_page(&session, &form, true, StatusCode::OK, "")
}

/// `?saved=1` after a save.
#[derive(Debug, Default, Deserialize)]
pub struct SavedQuery {
    #[serde(default)]
    saved: Option<String>,
}

/// `GET /ui/agents/{name}`: the edit form (read-only for a scoped key).
pub async fn edit_form(
    State(web): State<Arc<Web>>,
    session: Session,
    Path(name): Path<String>,
    Query(query): Query<SavedQuery>,
) -> Result<Response, PageError> {
    if let Grant::Scope(own) = &session.grant
        && own.agent() != name
    {
        return Err(ServerError::NotFound(format!("no agent `{name}`")).into());
    }
    let agent = web
        .app
        .agents
        .get(&name)
        .await
        .unwrap_or_else(|| AgentRecord::named(name.as_str()));
    let form = AgentForm::from_record(&agent);
    let saved = query.saved.is_some();
    let ctx = context! { agent => ser(&form), new => false, failed => "", saved, max_prefetch => MAX_PREFETCH };
    Ok(templates()
        .page("agent.html", &session, ctx)?
        .into_response())
}

/// `POST /ui/agents`: creates an agent (the name must be new).
pub async fn create(
    State(web): State<Arc<Web>>,
    session: Session,
    Form(form): Form<AgentForm>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    admin_only(&session)?;
    let name = form.name.trim().to_owned();
    if web.app.agents.get(&name).await.is_some() {
        let failed = format!("An agent named `{name}` exists: pick another name.");
        return form_page(&session, &form, true, StatusCode::CONFLICT, &failed);
    }
    store(&web, &session, form, &name, true).await
}

/// `POST /ui/agents/{name}`: saves the agent's settings (the next turn uses them).
pub async fn save(
    State(web): State<Arc<Web>>,
    session: Session,
    Path(name): Path<String>,
    Form(form): Form<AgentForm>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    admin_only(&session)?;
    store(&web, &session, form, &name, false).await
}

async fn store(
    web: &Web,
    session: &Session,
    form: AgentForm,
    name: &str,
    new: bool,
) -> Result<Response, PageError> {
    let record = match form.to_record(name) {
        Ok(record) => record,
        Err(e) => return form_page(session, &form, new, StatusCode::BAD_REQUEST, &e.to_string()),
    };
    if let Err(e) = web.app.agents.put(record.clone()).await {
        return match e {
            ServerError::Invalid(why) => {
                form_page(session, &form, new, StatusCode::BAD_REQUEST, &why)
            }
            other => Err(other.into()),
        };
    }
    let target = format!("/ui/agents/{}?saved=1", encode(&record.name));
    Ok(Redirect::to(&target).into_response())
}
