//! The management page of the server: agents and their memory settings, and
//! a memory browser per agent and user (list, filters, search with the score
//! breakdown of each hit, edit, archive, weight, delete, usage log), and a
//! chat panel streaming an agent's turn beside the memory context it used.
//!
//! Server-rendered [minijinja] templates (HTML auto-escaping) and one small
//! script, all embedded in the binary. Signing in with a server key starts a
//! session (cookie `HttpOnly; SameSite=Strict`, `Secure` over TLS); every
//! form carries the session's CSRF token; every answer carries a strict
//! Content-Security-Policy. See `docs/server.md`.

mod agent_form;
mod agents_page;
mod assets;
mod chat_page;
mod login;
mod memories_page;
mod memory_page;
mod page;
mod render;
pub mod session;
mod views;

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::Redirect;
use axum::routing::{get, post};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::AppState;
pub use page::{PREFIX, PageError, Web};
pub use render::{Templates, templates};
use session::SessionStore;

/// The Content-Security-Policy of every answer of the page: scripts, styles
/// and connections from the server itself only, no inline script or style,
/// no plugins, no framing, forms posting only to the server.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; \
    frame-ancestors 'none'; base-uri 'none'";

fn header_layer(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
}

/// The page's routes under `/ui` (and `/` redirecting there), with their
/// security headers; merged into [`crate::router`].
pub fn router<S: Clone + Send + Sync + 'static>(app: Arc<AppState>) -> Router<S> {
    let web = Arc::new(Web {
        app,
        sessions: SessionStore::default(),
    });
    let scope = "/ui/memories/{agent}/{user}";
    let pages = Router::new()
        .route("/ui", get(agents_page::list))
        .route("/ui/", get(agents_page::list))
        .route("/ui/login", get(login::form).post(login::sign_in))
        .route("/ui/logout", post(login::sign_out))
        .route("/ui/agents", post(agents_page::create))
        .route("/ui/agents/new", get(agents_page::new_form))
        .route(
            "/ui/agents/{name}",
            get(agents_page::edit_form).post(agents_page::save),
        )
        .route("/ui/memories/{agent}", get(memories_page::open_user))
        .route(scope, get(memories_page::list).post(memories_page::add))
        .route(&format!("{scope}/{{id}}"), get(memory_page::show))
        .route(&format!("{scope}/{{id}}/edit"), post(memory_page::edit))
        .route(&format!("{scope}/{{id}}/weight"), post(memory_page::weight))
        .route(
            &format!("{scope}/{{id}}/archive"),
            post(memory_page::archive),
        )
        .route(
            &format!("{scope}/{{id}}/restore"),
            post(memory_page::restore),
        )
        .route(&format!("{scope}/{{id}}/delete"), post(memory_page::delete))
        .route(
            "/ui/chat/{agent}/{user}",
            get(chat_page::page).post(chat_page::turn),
        )
        .route("/ui/static/{file}", get(assets::file))
        .layer(header_layer(
            header::CONTENT_SECURITY_POLICY,
            CONTENT_SECURITY_POLICY,
        ))
        .layer(header_layer(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header_layer(header::X_FRAME_OPTIONS, "DENY"))
        .layer(header_layer(header::REFERRER_POLICY, "no-referrer"))
        .layer(header_layer(header::CACHE_CONTROL, "no-store"))
        .layer(axum::middleware::from_fn(crate::access_log::log_request))
        .with_state(web);
    Router::new()
        .route("/", get(|| async { Redirect::to("/ui/") }))
        .merge(pages)
}
