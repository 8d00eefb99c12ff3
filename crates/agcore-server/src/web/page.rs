//! What the page's handlers share ([`Web`]), how a page request fails
//! ([`PageError`], answered by [`super::render`]) and the session extractor.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::session::{SESSION_COOKIE, Session, SessionStore, cookie_value};
use crate::{AppState, ServerError};

/// Where the page lives.
pub const PREFIX: &str = "/ui";

/// What the page's handlers share.
#[derive(Debug)]
pub struct Web {
    /// The server's state.
    pub app: Arc<AppState>,
    /// The signed-in sessions.
    pub sessions: SessionStore,
}

/// A failed page request, answered as an HTML page (or, for [`PageError::SignIn`],
/// a redirect to the sign-in form).
#[derive(Debug)]
pub enum PageError {
    /// No live session: go and sign in.
    SignIn,
    /// The request failed; the page shows the error's sentence and status.
    Server(ServerError),
}

impl From<ServerError> for PageError {
    fn from(err: ServerError) -> Self {
        Self::Server(err)
    }
}

impl From<agcore::memory::MemoryError> for PageError {
    fn from(err: agcore::memory::MemoryError) -> Self {
        Self::Server(err.into())
    }
}

impl FromRequestParts<Arc<Web>> for Session {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, web: &Arc<Web>) -> Result<Self, PageError> {
        cookie_value(&parts.headers, SESSION_COOKIE)
            .and_then(|id| web.sessions.get(&id))
            .ok_or(PageError::SignIn)
    }
}
