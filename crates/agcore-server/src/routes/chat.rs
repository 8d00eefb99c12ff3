//! `POST /v1/chat` (scoped keys) and `POST /v1/scopes/{agent}/{user}/chat`
//! (admin keys): one chat turn of the scope's agent, streamed as SSE.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};

use crate::auth::CallerScope;
use crate::chat::{ChatRequest, chat_turn};
use crate::{AppState, ServerError};

/// Runs the turn; the answer is `text/event-stream` with the events
/// `memory_context`, `delta`…, then `done` or `error`.
#[utoipa::path(post, path = "/v1/chat", tag = "chat", request_body = ChatRequest, responses((status = 200, description = "Server-sent events `memory_context`, `delta`…, then `done` or `error`; each data line is the JSON of a `ChatEvent`.", body = crate::chat::ChatEvent, content_type = "text/event-stream"), (status = 503, description = "No LLM endpoint is configured.", body = crate::error::ErrorBody), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn chat(
    State(state): State<Arc<AppState>>,
    CallerScope(scoped): CallerScope,
    Json(request): Json<ChatRequest>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ServerError> {
    let events = chat_turn(state, scoped.scope().clone(), request).await?;
    Ok(Sse::new(events.map(|event| Ok(event.to_sse()))).keep_alive(KeepAlive::default()))
}
