//! The chat panel: talk to an agent as one of its users through the
//! server's LLM endpoint; the reply streams in and the `<memory-context>`
//! block the turn used is shown beside it (as text).

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use minijinja::context;

use super::memories_page::scope_url;
use super::page::{PageError, Web};
use super::render::ser;
use super::render::templates;
use super::session::Session;
use super::views::ScopeView;
use crate::ServerError;
use crate::chat::{ChatRequest, chat_turn};

/// The header carrying the session's CSRF token on the chat request.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// `GET /ui/chat/{agent}/{user}`.
pub async fn page(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user)): Path<(String, String)>,
) -> Result<Response, PageError> {
    let scope = session.scope(&agent, &user)?;
    let record = web.app.agents.get(&agent).await;
    let ctx = context! {
        scope => ser(&ScopeView::from(&scope)),
        base => scope_url(&agent, &user),
        endpoint => format!("/ui/chat/{}/{}", super::render::encode(&agent), super::render::encode(&user)),
        configured => web.app.chat.is_some(),
        memory_on => record.as_ref().is_none_or(|r| r.memory.enabled),
    };
    Ok(templates()
        .page("chat.html", &session, ctx)?
        .into_response())
}

/// `POST /ui/chat/{agent}/{user}` with a JSON [`ChatRequest`] and the
/// session's CSRF token in `X-CSRF-Token`: the turn's events as SSE
/// (`memory_context`, `delta`…, `done` or `error`).
pub async fn turn(
    State(web): State<Arc<Web>>,
    session: Session,
    Path((agent, user)): Path<(String, String)>,
    headers: HeaderMap,
    Json(request): Json<ChatRequest>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ServerError> {
    let token = headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    session.check_csrf(token)?;
    let scope = session.scope(&agent, &user)?;
    let events = chat_turn(Arc::clone(&web.app), scope, request).await?;
    Ok(Sse::new(events.map(|event| Ok(event.to_sse()))).keep_alive(KeepAlive::default()))
}
