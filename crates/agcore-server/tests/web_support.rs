//! The management page as the tests of `web.rs` drive it: a router over a
//! fresh state, requests with or without the session and its form token,
//! and the answers read back.

use agcore_server::{AppState, KeyStore};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use std::sync::Arc;
use tower::ServiceExt;

pub struct Page {
    pub app: Router,
    pub state: Arc<AppState>,
}

pub struct Answer {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The value of the first hidden `csrf` field.
    pub fn csrf(&self) -> String {
        let start = self
            .body
            .find("name=\"csrf\" value=\"")
            .expect("a csrf field")
            + 19;
        self.body[start..start + 64].to_owned()
    }

    /// `name=value` of the Set-Cookie header for `name`.
    pub fn cookie(&self, name: &str) -> String {
        let all = self.header("set-cookie");
        let line = all
            .lines()
            .find(|l| l.starts_with(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} cookie in {all}"));
        line.split(';').next().unwrap().to_owned()
    }
}

impl Page {
    pub async fn new() -> Self {
        let storage = agcore::memory::open("memory://").await.unwrap();
        let state = Arc::new(AppState::new(
            storage.long_term().unwrap(),
            KeyStore::in_memory(),
        ));
        Self {
            app: agcore_server::router(Arc::clone(&state)),
            state,
        }
    }

    pub async fn send(&self, method: &str, path: &str, cookie: &str, form: Option<&str>) -> Answer {
        self.send_with(method, path, cookie, form, &[]).await
    }

    pub async fn send_with(
        &self,
        method: &str,
        path: &str,
        cookie: &str,
        form: Option<&str>,
        extra: &[(&str, &str)],
    ) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        if !cookie.is_empty() {
            request = request.header("cookie", cookie);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let body = match form {
            Some(text) => {
                request = request.header("content-type", "application/x-www-form-urlencoded");
                Body::from(text.to_owned())
            }
            None => Body::empty(),
        };
        let response = self
            .app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    /// Signs in with `key`: the session cookie (`name=value`) and the page's CSRF token.
    pub async fn sign_in(&self, key: &str) -> (String, String) {
        let form = self.send("GET", "/ui/login", "", None).await;
        let login = form.cookie("agcore_login");
        let body = format!("csrf={}&key={key}", form.csrf());
        let signed = self.send("POST", "/ui/login", &login, Some(&body)).await;
        assert_eq!(signed.status, StatusCode::SEE_OTHER, "{}", signed.body);
        let session = signed.cookie("agcore_session");
        let agents = self.send("GET", "/ui/", &session, None).await;
        assert_eq!(agents.status, StatusCode::OK);
        (session, agents.csrf())
    }
}

pub fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}
