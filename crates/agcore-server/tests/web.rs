//! The management page without a browser: security headers, cookie flags,
//! CSRF refusals, scope checks and the escaping of hostile memory text.
#![cfg(test)]

use agcore::memory::long_term::{MemoryScope, MemoryType, NewMemory};
use agcore_server::Grant;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

const HOSTILE: &str = "<script>alert('x')</script> \"><img src=x onerror=alert(1)> <a href=\"javascript:alert(2)\">click</a>";

mod web_support;

use web_support::{Page, encode};

#[tokio::test]
async fn pages_carry_security_headers_and_safe_cookies() {
    let page = Page::new().await;
    let anonymous = page.send("GET", "/ui/", "", None).await;
    assert_eq!(anonymous.status, StatusCode::SEE_OTHER);
    assert_eq!(anonymous.header("location"), "/ui/login");
    let login = page.send("GET", "/ui/login", "", None).await;
    assert_eq!(login.status, StatusCode::OK);
    let csp = login.header("content-security-policy");
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"));
    assert_eq!(login.header("x-content-type-options"), "nosniff");
    assert_eq!(login.header("x-frame-options"), "DENY");
    let cookie = login.header("set-cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    let tls = page
        .send_with(
            "GET",
            "/ui/login",
            "",
            None,
            &[("x-forwarded-proto", "https")],
        )
        .await;
    assert!(tls.header("set-cookie").contains("Secure"));

    let key = page.state.keys.create(&Grant::Admin).unwrap().0;
    let form = page.send("GET", "/ui/login", "", None).await;
    let login_cookie = form.cookie("agcore_login");
    let body = format!("csrf={}&key={key}", form.csrf());
    let tls_sign_in = page
        .send_with(
            "POST",
            "/ui/login",
            &login_cookie,
            Some(&body),
            &[("x-forwarded-proto", "https")],
        )
        .await;
    assert_eq!(tls_sign_in.status, StatusCode::SEE_OTHER);
    let session = tls_sign_in.header("set-cookie");
    let line = session
        .lines()
        .find(|l| l.starts_with("agcore_session="))
        .unwrap();
    for flag in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/"] {
        assert!(line.contains(flag), "{line}");
    }
    let js = page.send("GET", "/ui/static/app.js", "", None).await;
    assert!(js.header("content-type").starts_with("text/javascript"));
}

#[tokio::test]
async fn sign_in_needs_the_form_token_and_a_known_key() {
    let page = Page::new().await;
    let key = page.state.keys.create(&Grant::Admin).unwrap().0;
    let form = page.send("GET", "/ui/login", "", None).await;
    let login = form.cookie("agcore_login");
    let forged = page
        .send(
            "POST",
            "/ui/login",
            &login,
            Some(&format!("csrf={}&key={key}", "0".repeat(64))),
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(!forged.header("set-cookie").contains("agcore_session="));
    let no_cookie = page
        .send(
            "POST",
            "/ui/login",
            "",
            Some(&format!("csrf={}&key={key}", form.csrf())),
        )
        .await;
    assert_eq!(no_cookie.status, StatusCode::FORBIDDEN);
    let unknown = page
        .send(
            "POST",
            "/ui/login",
            &login,
            Some(&format!("csrf={}&key=agk_00", form.csrf())),
        )
        .await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    assert!(!unknown.header("set-cookie").contains("agcore_session="));
    let (session, _) = page.sign_in(&key).await;
    let bogus = page
        .send("GET", "/ui/", "agcore_session=feedbeef", None)
        .await;
    assert_eq!(bogus.status, StatusCode::SEE_OTHER);
    assert_eq!(
        page.send("GET", "/ui/", &session, None).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn forms_without_the_session_token_change_nothing() {
    let page = Page::new().await;
    let (session, csrf) = page
        .sign_in(&page.state.keys.create(&Grant::Admin).unwrap().0)
        .await;
    let body = "name=helper&description=d&memory_enabled=on&backend=server&prefetch_limit=5";
    let refused = page
        .send(
            "POST",
            "/ui/agents",
            &session,
            Some(&format!("csrf=bad&{body}")),
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let missing = page.send("POST", "/ui/agents", &session, Some(body)).await;
    assert!(missing.status.is_client_error());
    assert!(page.state.agents.get("helper").await.is_none());
    let created = page
        .send(
            "POST",
            "/ui/agents",
            &session,
            Some(&format!("csrf={csrf}&{body}")),
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    let agent = page.state.agents.get("helper").await.unwrap();
    assert!(agent.memory.enabled);

    // Switching memory off: an unticked checkbox sends nothing.
    let off = "description=d&backend=sqlite&backend_location=/tmp/h.db&prefetch_limit=3&attachments=docs,%20notes";
    let saved = page
        .send(
            "POST",
            "/ui/agents/helper",
            &session,
            Some(&format!("csrf={csrf}&{off}")),
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let agent = page.state.agents.get("helper").await.unwrap();
    assert!(!agent.memory.enabled);
    assert_eq!(
        agent.memory.backend_url.as_deref(),
        Some("sqlite:///tmp/h.db")
    );
    assert_eq!(agent.memory.prefetch_limit, 3);
    assert_eq!(agent.memory.attachments, ["docs", "notes"]);
    let bad = page
        .send(
            "POST",
            "/ui/agents/helper",
            &session,
            Some(&format!("csrf={csrf}&backend=mysql&backend_location=nope")),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.body.contains("mysql://"));

    let scope = MemoryScope::new("helper", "alice").unwrap();
    let id = page
        .state
        .memory
        .scoped(scope)
        .save(NewMemory::new(
            MemoryType::User,
            "tea",
            "Alice drinks green tea",
        ))
        .await
        .unwrap()
        .entry
        .id;
    let path = format!("/ui/memories/helper/alice/{id}/delete");
    let kept = page.send("POST", &path, &session, Some("csrf=0")).await;
    assert_eq!(kept.status, StatusCode::FORBIDDEN);
    let logout = page
        .send("POST", "/ui/logout", &session, Some("csrf=0"))
        .await;
    assert_eq!(logout.status, StatusCode::FORBIDDEN);
    let gone = page
        .send("POST", &path, &session, Some(&format!("csrf={csrf}")))
        .await;
    assert_eq!(gone.status, StatusCode::SEE_OTHER);
    let out = page
        .send(
            "POST",
            "/ui/logout",
            &session,
            Some(&format!("csrf={csrf}")),
        )
        .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert_eq!(
        page.send("GET", "/ui/", &session, None).await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn scoped_keys_open_only_their_own_memory() {
    let page = Page::new().await;
    let scope = MemoryScope::new("helper", "alice").unwrap();
    let key = page
        .state
        .keys
        .create(&Grant::Scope(scope.clone()))
        .unwrap()
        .0;
    page.state
        .memory
        .scoped(MemoryScope::new("helper", "bob").unwrap())
        .save(NewMemory::new(
            MemoryType::User,
            "secret",
            "Bob's secret plan",
        ))
        .await
        .unwrap();
    let (session, csrf) = page.sign_in(&key).await;
    let agents = page.send("GET", "/ui/", &session, None).await;
    assert!(agents.body.contains("/ui/memories/helper/alice"));
    assert!(!agents.body.contains("bob"));
    assert_eq!(
        page.send("GET", "/ui/memories/helper/alice", &session, None)
            .await
            .status,
        StatusCode::OK
    );
    let other = page
        .send("GET", "/ui/memories/helper/bob", &session, None)
        .await;
    assert_eq!(other.status, StatusCode::FORBIDDEN);
    assert!(!other.body.contains("secret plan"));
    let add = page
        .send(
            "POST",
            "/ui/memories/helper/bob",
            &session,
            Some(&format!("csrf={csrf}&content=x")),
        )
        .await;
    assert_eq!(add.status, StatusCode::FORBIDDEN);
    let create = page
        .send(
            "POST",
            "/ui/agents",
            &session,
            Some(&format!("csrf={csrf}&name=mine")),
        )
        .await;
    assert_eq!(create.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn hostile_memory_text_is_escaped_everywhere() {
    let page = Page::new().await;
    let (session, csrf) = page
        .sign_in(&page.state.keys.create(&Grant::Admin).unwrap().0)
        .await;
    let body = format!(
        "csrf={csrf}&content={}&name={}&tags={}",
        encode(HOSTILE),
        encode(HOSTILE),
        encode("<b>x</b>")
    );
    let added = page
        .send("POST", "/ui/memories/helper/alice", &session, Some(&body))
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER, "{}", added.body);
    let detail = page
        .send("GET", &added.header("location"), &session, None)
        .await;
    let list = page
        .send("GET", "/ui/memories/helper/alice?q=alert", &session, None)
        .await;
    assert!(
        list.body.contains("class=\"hit\""),
        "the search finds it: {}",
        list.body
    );
    for html in [&detail.body, &list.body] {
        assert!(!html.contains("<script>alert"), "raw script tag");
        assert!(!html.contains("<img"), "raw img tag");
        assert!(!html.contains("<b>x"), "raw tag in tags");
        assert!(!html.contains("href=\"javascript:"), "a javascript: link");
        assert!(html.contains("&lt;script&gt;alert"));
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
        // Every script is a file; no inline style either (the CSP forbids both).
        for tag in html.split("<script").skip(1) {
            assert!(
                tag.trim_start().starts_with("src=\"/ui/static/"),
                "inline script: {tag}"
            );
        }
        assert!(!html.contains(" style="));
    }
}

#[tokio::test]
async fn the_chat_turn_needs_the_csrf_header() {
    let page = Page::new().await;
    let (session, csrf) = page
        .sign_in(&page.state.keys.create(&Grant::Admin).unwrap().0)
        .await;
    let panel = page
        .send("GET", "/ui/chat/helper/alice", &session, None)
        .await;
    assert_eq!(panel.status, StatusCode::OK);
    assert!(panel.body.contains("Chat is not configured"));
    let json = [("content-type", "application/json")];
    let body = r#"{"message": "hi"}"#;
    let post = |extra: Vec<(&'static str, String)>| {
        let page = &page;
        let session = session.clone();
        async move {
            let mut request = Request::builder()
                .method("POST")
                .uri("/ui/chat/helper/alice")
                .header("cookie", session)
                .header(json[0].0, json[0].1);
            for (name, value) in extra {
                request = request.header(name, value);
            }
            let response = page
                .app
                .clone()
                .oneshot(request.body(Body::from(body)).unwrap())
                .await
                .unwrap();
            response.status()
        }
    };
    assert_eq!(post(vec![]).await, StatusCode::FORBIDDEN);
    assert_eq!(
        post(vec![("x-csrf-token", "0".repeat(64))]).await,
        StatusCode::FORBIDDEN
    );
    // The right token passes the check; this server has no LLM endpoint.
    assert_eq!(
        post(vec![("x-csrf-token", csrf)]).await,
        StatusCode::SERVICE_UNAVAILABLE
    );
}
