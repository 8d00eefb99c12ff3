//! Agents: list, get, create, update, with each agent's memory settings.
//! Admin keys see and change every agent; a scoped key sees only its own
//! agent and changes none.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use crate::agents::AgentRecord;
use crate::auth::Caller;
use crate::keys::Grant;
use crate::{AppState, ServerError};

fn visible(caller: &Caller, name: &str) -> bool {
    match &caller.grant {
        Grant::Admin => true,
        Grant::Scope(scope) => scope.agent() == name,
    }
}

fn admin_only(caller: &Caller) -> Result<(), ServerError> {
    match caller.grant {
        Grant::Admin => Ok(()),
        Grant::Scope(_) => Err(ServerError::Forbidden(
            "only admin keys create or change agents".into(),
        )),
    }
}

/// `GET /v1/agents`.
#[utoipa::path(get, path = "/v1/agents", tag = "agents", responses((status = 200, body = Vec<AgentRecord>), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn list(State(state): State<Arc<AppState>>, caller: Caller) -> Json<Vec<AgentRecord>> {
    let agents = state.agents.list().await;
    Json(
        agents
            .into_iter()
            .filter(|a| visible(&caller, &a.name))
            .collect(),
    )
}

/// `GET /v1/agents/{name}`.
#[utoipa::path(get, path = "/v1/agents/{name}", tag = "agents", params(("name" = String, Path, description = "The agent name.")), responses((status = 200, body = AgentRecord), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<AgentRecord>, ServerError> {
    match state.agents.get(&name).await {
        Some(agent) if visible(&caller, &agent.name) => Ok(Json(agent)),
        _ => Err(ServerError::NotFound(format!("no agent `{name}`"))),
    }
}

/// `POST /v1/agents`: creates an agent (409 when the name is taken).
#[utoipa::path(post, path = "/v1/agents", tag = "agents", request_body = AgentRecord, responses((status = 201, body = AgentRecord), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    caller: Caller,
    Json(agent): Json<AgentRecord>,
) -> Result<(StatusCode, Json<AgentRecord>), ServerError> {
    admin_only(&caller)?;
    if state.agents.get(&agent.name).await.is_some() {
        return Err(ServerError::Conflict(format!(
            "agent `{}` exists: PUT /v1/agents/{} changes it",
            agent.name, agent.name
        )));
    }
    state.agents.put(agent.clone()).await?;
    Ok((StatusCode::CREATED, Json(agent)))
}

/// `PUT /v1/agents/{name}`: replaces agent `name` (creating it when absent).
#[utoipa::path(put, path = "/v1/agents/{name}", tag = "agents", params(("name" = String, Path, description = "The agent name.")), request_body = AgentRecord, responses((status = 200, body = AgentRecord), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn update(
    State(state): State<Arc<AppState>>,
    caller: Caller,
    Path(name): Path<String>,
    Json(agent): Json<AgentRecord>,
) -> Result<Json<AgentRecord>, ServerError> {
    admin_only(&caller)?;
    if agent.name != name {
        return Err(ServerError::Invalid(format!(
            "the body names agent `{}`, the path `{name}`",
            agent.name
        )));
    }
    state.agents.put(agent.clone()).await?;
    Ok(Json(agent))
}
