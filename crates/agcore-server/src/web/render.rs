//! The page's templates (embedded, HTML auto-escaped) and their rendering.

use std::sync::LazyLock;

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use minijinja::{Environment, Value, context};

use super::page::{PREFIX, PageError};
use super::session::Session;
use crate::ServerError;

/// Every template of the page: (name, source). The `.html` names turn on
/// minijinja's HTML auto-escaping: every value is escaped unless a template
/// says otherwise (none does).
const TEMPLATES: [(&str, &str); 8] = [
    ("base.html", include_str!("../../web/templates/base.html")),
    ("login.html", include_str!("../../web/templates/login.html")),
    ("error.html", include_str!("../../web/templates/error.html")),
    (
        "agents.html",
        include_str!("../../web/templates/agents.html"),
    ),
    ("agent.html", include_str!("../../web/templates/agent.html")),
    (
        "memories.html",
        include_str!("../../web/templates/memories.html"),
    ),
    (
        "memory.html",
        include_str!("../../web/templates/memory.html"),
    ),
    ("chat.html", include_str!("../../web/templates/chat.html")),
];

static TEMPLATES_COMPILED: LazyLock<Templates> = LazyLock::new(Templates::new);

/// The page's templates, compiled on first use.
pub fn templates() -> &'static Templates {
    &TEMPLATES_COMPILED
}

/// The compiled templates.
#[derive(Debug)]
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// Compiles the embedded templates. A template that does not compile is
    /// logged and left out (its pages answer 500); a unit test compiles all.
    pub fn new() -> Self {
        let mut env = Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.add_filter("seg", |value: String| encode(&value));
        for (name, source) in TEMPLATES {
            if let Err(e) = env.add_template(name, source) {
                tracing::error!(template = name, error = %e, "template does not compile");
            }
        }
        Self { env }
    }

    /// Renders template `name` with `ctx`.
    ///
    /// # Errors
    /// [`ServerError::Io`] when the template is missing or fails.
    pub fn render(&self, name: &str, ctx: Value) -> Result<String, ServerError> {
        self.env
            .get_template(name)
            .and_then(|t| t.render(ctx))
            .map_err(|e| ServerError::Io(std::io::Error::other(format!("template {name}: {e}"))))
    }

    /// Renders a page of a signed-in session: `ctx` plus `session` (who,
    /// admin, csrf).
    ///
    /// # Errors
    /// As [`Templates::render`].
    pub fn page(
        &self,
        name: &str,
        session: &Session,
        ctx: Value,
    ) -> Result<Html<String>, PageError> {
        let who = match &session.grant {
            crate::Grant::Admin => "admin key".to_owned(),
            crate::Grant::Scope(s) => format!("{} / {}", s.agent(), s.user()),
        };
        let session = context! { who, admin => session.is_admin(), csrf => session.csrf.clone() };
        let full = context! { session, ..ctx };
        Ok(Html(self.render(name, full)?))
    }
}

impl Default for Templates {
    fn default() -> Self {
        Self::new()
    }
}

/// Percent-encodes one path segment (every byte but ASCII letters and digits).
pub fn encode(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// A serializable value for a template context.
pub fn ser<T: serde::Serialize + ?Sized>(value: &T) -> Value {
    Value::from(minijinja::value::Serde(value))
}

/// The HTML page of an error, with its status.
pub fn error_page(err: &ServerError) -> Response {
    let status = err.status();
    if status.is_server_error() {
        tracing::warn!(error = %err, "page request failed");
    }
    let ctx = context! { status => status.as_u16(), reason => status.canonical_reason(), message => err.to_string() };
    match templates().render("error.html", ctx) {
        Ok(html) => (status, Html(html)).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "error").into_response(),
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        match self {
            Self::SignIn => Redirect::to(&format!("{PREFIX}/login")).into_response(),
            Self::Server(err) => error_page(&err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_compiles() {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            env.add_template(name, source)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn values_are_escaped() {
        let t = Templates::new();
        let html = t
            .render(
                "error.html",
                context! { status => 400, reason => "Bad", message => "<script>alert(1)</script>\"><img src=x onerror=alert(1)>" },
            )
            .unwrap();
        assert!(!html.contains("<script>alert"));
        assert!(!html.contains("<img src=x"));
        assert!(html.contains("&lt;script&gt;"));
    }
}
