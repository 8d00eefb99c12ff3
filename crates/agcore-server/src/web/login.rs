//! Signing in with a server key, and out.

use std::sync::Arc;

use axum::Form;
use axum::extract::State;
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use minijinja::context;
use serde::Deserialize;

use super::page::{PageError, Web};
use super::render::templates;
use super::session::{
    LOGIN_COOKIE, SESSION_COOKIE, SESSION_TTL, Session, cookie_value, over_tls, random_token,
    set_cookie, tokens_match,
};

/// How long the sign-in form's token lives.
const LOGIN_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// The sign-in form, with a fresh CSRF token in a cookie and a hidden field.
fn form_page(headers: &HeaderMap, uri: &Uri, status: StatusCode, failed: &str) -> Response {
    let token = random_token();
    let cookie = set_cookie(
        LOGIN_COOKIE,
        &token,
        over_tls(headers, uri),
        Some(LOGIN_TTL),
    );
    match templates().render("login.html", context! { csrf => token, failed }) {
        Ok(html) => (status, [(SET_COOKIE, cookie)], Html(html)).into_response(),
        Err(e) => PageError::Server(e).into_response(),
    }
}

/// `GET /ui/login`.
pub async fn form(headers: HeaderMap, uri: Uri) -> Response {
    form_page(&headers, &uri, StatusCode::OK, "")
}

/// The sign-in form's fields.
#[derive(Debug, Deserialize)]
pub struct SignIn {
    csrf: String,
    key: String,
}

/// `POST /ui/login`: a known key starts a session and goes to the agents.
pub async fn sign_in(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<SignIn>,
) -> Response {
    let expected = cookie_value(&headers, LOGIN_COOKIE).unwrap_or_default();
    if !tokens_match(&expected, &form.csrf) {
        return form_page(
            &headers,
            &uri,
            StatusCode::FORBIDDEN,
            "The form expired: sign in again.",
        );
    }
    let grant = web
        .app
        .keys
        .verify(form.key.trim())
        .and_then(|record| Some((record.id.clone(), record.grant()?)));
    let Some((key_id, grant)) = grant else {
        return form_page(
            &headers,
            &uri,
            StatusCode::UNAUTHORIZED,
            "This server does not know that key.",
        );
    };
    let session = match web.sessions.create(key_id, grant) {
        Ok(session) => session,
        Err(e) => return PageError::Server(e).into_response(),
    };
    tracing::info!(key = %session.key_id, "signed in to the page");
    let secure = over_tls(&headers, &uri);
    let mut response = Redirect::to("/ui/").into_response();
    let cookies = [
        set_cookie(SESSION_COOKIE, &session.id, secure, Some(SESSION_TTL)),
        set_cookie(LOGIN_COOKIE, "", secure, None),
    ];
    for cookie in cookies {
        if let Ok(value) = cookie.parse() {
            response.headers_mut().append(SET_COOKIE, value);
        }
    }
    response
}

/// A form that carries only the CSRF token.
#[derive(Debug, Deserialize)]
pub struct TokenOnly {
    /// The session's CSRF token.
    pub csrf: String,
}

/// `POST /ui/logout`: ends the session.
pub async fn sign_out(
    State(web): State<Arc<Web>>,
    session: Session,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<TokenOnly>,
) -> Result<Response, PageError> {
    session.check_csrf(&form.csrf)?;
    web.sessions.remove(&session.id);
    let cookie = set_cookie(SESSION_COOKIE, "", over_tls(&headers, &uri), None);
    Ok(([(SET_COOKIE, cookie)], Redirect::to("/ui/login")).into_response())
}
