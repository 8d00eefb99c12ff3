//! A chat turn of an agent, streamed: the agent's record from the
//! [`AgentStore`](crate::AgentStore) at request time (instructions, model,
//! memory settings), the agent runtime of `agcore-agent` (prefetch into the
//! `<memory-context>` block, the memory tools, extraction after the turn,
//! the conversation's history) and the server's LLM endpoint
//! ([`ChatRuntime`]). Served as SSE by `POST /v1/chat` and
//! `POST /v1/scopes/{agent}/{user}/chat`.

mod conversations;
mod events;
mod runtime;

use std::sync::Arc;

use agcore::agent::AgentEvent;
use agcore::memory::long_term::MemoryScope;
use futures::{Stream, StreamExt};
use tokio::sync::OwnedMutexGuard;

use self::conversations::Conversation;
pub use self::events::{ChatEvent, ChatRequest};
pub use self::runtime::{ChatRuntime, DEFAULT_MAX_CONVERSATIONS};
use crate::agents::AgentRecord;
use crate::{AppState, ServerError};

/// The answer of a chat request to a server without an LLM endpoint.
pub const NO_CHAT_ENDPOINT: &str = "chat is not configured on this server: set OPENAI_BASE_URL \
     and AGCORE_MODEL (or base_url and model under [llm] in agcore.toml) and restart `agcore serve`";

/// Longest session id, in bytes.
pub const MAX_SESSION_ID: usize = 128;

/// Runs one chat turn of `scope`'s agent for `scope`'s user and streams
/// its [`ChatEvent`]s: one `MemoryContext`, the `Delta`s of the reply, then
/// `Done` (the turn joined the conversation) or `Error` (the conversation
/// is unchanged). Turns of one conversation run one after the other;
/// dropping the stream abandons the turn.
///
/// The agent's record is read now, so an edit applies from the next turn:
/// `memory.enabled = false` means no prefetch, no memory tools and no
/// extraction; `memory.prefetch_limit`, `instructions` and `model` apply
/// as set. An agent the store does not hold runs with
/// [`AgentRecord::named`]'s defaults.
///
/// # Errors
/// [`ServerError::Unavailable`] (503) without a [`ChatRuntime`];
/// [`ServerError::Invalid`] (400) for an empty message or a malformed
/// session id.
pub async fn chat_turn(
    state: Arc<AppState>,
    scope: MemoryScope,
    request: ChatRequest,
) -> Result<impl Stream<Item = ChatEvent> + Send + 'static, ServerError> {
    let Some(runtime) = state.chat.as_ref() else {
        return Err(ServerError::Unavailable(NO_CHAT_ENDPOINT.into()));
    };
    if request.message.trim().is_empty() {
        return Err(ServerError::Invalid("`message` is empty".into()));
    }
    let session = match request.session {
        Some(id) => check_session_id(id)?,
        None => format!("{:032x}", rand::random::<u128>()),
    };
    let record = state
        .agents
        .get(scope.agent())
        .await
        .unwrap_or_else(|| AgentRecord::named(scope.agent()));
    let guard = runtime.open(&state, &scope, &session, record).await?;
    Ok(turn_events(guard, request.message, session))
}

/// `id` when it is a valid session id.
fn check_session_id(id: String) -> Result<String, ServerError> {
    let valid = !id.is_empty()
        && id.len() <= MAX_SESSION_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if valid {
        Ok(id)
    } else {
        Err(ServerError::Invalid(format!(
            "`session` is 1 to {MAX_SESSION_ID} ASCII letters, digits, `-`, `_` or `.`"
        )))
    }
}

/// The events of one turn of the locked conversation.
fn turn_events(
    mut guard: OwnedMutexGuard<Option<Conversation>>,
    message: String,
    session: String,
) -> impl Stream<Item = ChatEvent> + Send + 'static {
    async_stream::stream! {
        let Some(conversation) = guard.as_mut() else {
            yield empty_context();
            yield ChatEvent::Error { error: "the conversation is not open".into() };
            return;
        };
        let mut context_sent = false;
        let mut events = conversation.session.submit_turn_stream(message);
        while let Some(event) = events.next().await {
            match event {
                Ok(AgentEvent::MemoryContext { text, memory_ids }) => {
                    context_sent = true;
                    yield ChatEvent::MemoryContext { text, memory_ids };
                }
                Ok(AgentEvent::Cycle(cycle)) => {
                    if let Some(text) = cycle.text_delta().filter(|t| !t.is_empty()) {
                        yield ChatEvent::Delta { text: text.to_owned() };
                    }
                }
                Ok(AgentEvent::TurnCompleted { response, .. }) => {
                    yield ChatEvent::Done {
                        reply: response.text(),
                        session: session.clone(),
                        usage: response
                            .usage
                            .as_ref()
                            .and_then(|u| serde_json::to_value(u).ok()),
                    };
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "chat turn failed");
                    if !context_sent {
                        yield empty_context();
                    }
                    yield ChatEvent::Error { error: one_line(&err.to_string()) };
                }
            }
        }
    }
}

fn empty_context() -> ChatEvent {
    ChatEvent::MemoryContext {
        text: String::new(),
        memory_ids: Vec::new(),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_checked() {
        assert_eq!(check_session_id("a-b_c.1".into()).unwrap(), "a-b_c.1");
        for bad in ["", "a b", "../x", "é", &"x".repeat(MAX_SESSION_ID + 1)] {
            assert!(check_session_id(bad.to_owned()).is_err(), "{bad}");
        }
    }
}
