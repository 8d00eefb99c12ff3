//! Sessions of the page: a random id in an `HttpOnly; SameSite=Strict`
//! cookie (`Secure` over TLS), the key's grant and a CSRF token on the server.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agcore::memory::long_term::MemoryScope;
use axum::http::header::COOKIE;
use axum::http::{HeaderMap, Uri};
use cookie::{Cookie, SameSite};
use subtle::ConstantTimeEq;

use crate::ServerError;
use crate::keys::Grant;

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "agcore_session";
/// Name of the cookie holding the sign-in form's CSRF token.
pub const LOGIN_COOKIE: &str = "agcore_login";
/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);
/// Most sessions held at once; the oldest go first beyond it.
const MAX_SESSIONS: usize = 10_000;

/// A signed-in session.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session id (the cookie's value).
    pub id: String,
    /// The public id of the key that signed in.
    pub key_id: String,
    /// What the key may do.
    pub grant: Grant,
    /// The token every form of this session carries.
    pub csrf: String,
    created: Instant,
}

impl Session {
    /// Checks a form's CSRF token against the session's.
    ///
    /// # Errors
    /// [`ServerError::Forbidden`] when it differs.
    pub fn check_csrf(&self, token: &str) -> Result<(), ServerError> {
        if tokens_match(&self.csrf, token) {
            Ok(())
        } else {
            Err(ServerError::Forbidden(
                "the form's CSRF token is missing or stale: reload the page and try again".into(),
            ))
        }
    }

    /// The scope `agent` / `user` if this session may open it: an admin key
    /// any scope, a scoped key only its own.
    ///
    /// # Errors
    /// [`ServerError::Forbidden`] for another scope; [`ServerError::Invalid`]
    /// for an invalid one.
    pub fn scope(&self, agent: &str, user: &str) -> Result<MemoryScope, ServerError> {
        match &self.grant {
            Grant::Admin => Ok(MemoryScope::new(agent, user)?),
            Grant::Scope(own) if own.agent() == agent && own.user() == user => Ok(own.clone()),
            Grant::Scope(_) => Err(ServerError::Forbidden(
                "this key opens only its own agent and user".into(),
            )),
        }
    }

    /// `true` for an admin key.
    pub fn is_admin(&self) -> bool {
        matches!(self.grant, Grant::Admin)
    }
}

/// Compares two tokens in constant time.
pub fn tokens_match(expected: &str, given: &str) -> bool {
    !expected.is_empty() && bool::from(expected.as_bytes().ct_eq(given.as_bytes()))
}

/// 256 random bits, hex.
pub fn random_token() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sessions of the page, in memory (a restart signs everyone out).
#[derive(Debug, Default)]
pub struct SessionStore {
    sessions: Mutex<HashMap<String, Session>>,
}

fn poisoned() -> ServerError {
    ServerError::Io(std::io::Error::other("the session lock is poisoned"))
}

impl SessionStore {
    /// Starts a session for a key.
    ///
    /// # Errors
    /// [`ServerError::Io`] when the lock is poisoned.
    pub fn create(&self, key_id: String, grant: Grant) -> Result<Session, ServerError> {
        let session = Session {
            id: random_token(),
            key_id,
            grant,
            csrf: random_token(),
            created: Instant::now(),
        };
        let mut sessions = self.sessions.lock().map_err(|_| poisoned())?;
        sessions.retain(|_, s| s.created.elapsed() < SESSION_TTL);
        if sessions.len() >= MAX_SESSIONS {
            let oldest = sessions
                .values()
                .min_by_key(|s| s.created)
                .map(|s| s.id.clone());
            if let Some(id) = oldest {
                sessions.remove(&id);
            }
        }
        sessions.insert(session.id.clone(), session.clone());
        Ok(session)
    }

    /// The live session of `id`.
    pub fn get(&self, id: &str) -> Option<Session> {
        let sessions = self.sessions.lock().ok()?;
        sessions
            .get(id)
            .filter(|s| s.created.elapsed() < SESSION_TTL)
            .cloned()
    }

    /// Ends session `id`.
    pub fn remove(&self, id: &str) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.remove(id);
        }
    }
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_owned())
}

/// `true` when the request came over TLS: an `https` URI, or a proxy's
/// `X-Forwarded-Proto: https` / `Forwarded: proto=https`.
pub fn over_tls(headers: &HeaderMap, uri: &Uri) -> bool {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
    };
    uri.scheme_str() == Some("https")
        || header("x-forwarded-proto").is_some_and(|v| v.trim() == "https")
        || header("forwarded").is_some_and(|v| v.contains("proto=https"))
}

/// A `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, path `/`, `Secure`
/// when `secure`; `max_age` `None` deletes the cookie.
pub fn set_cookie(name: &str, value: &str, secure: bool, max_age: Option<Duration>) -> String {
    let mut builder = Cookie::build((name.to_owned(), value.to_owned()))
        .http_only(true)
        .same_site(SameSite::Strict)
        .path("/")
        .secure(secure);
    builder = match max_age {
        Some(age) => builder.max_age(cookie::time::Duration::seconds(
            i64::try_from(age.as_secs()).unwrap_or(i64::MAX),
        )),
        None => builder.max_age(cookie::time::Duration::ZERO),
    };
    builder.build().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        let t = random_token();
        assert_eq!(t.len(), 64);
        assert!(tokens_match(&t, &t));
        assert!(!tokens_match(&t, &t[..63]));
        assert!(!tokens_match(&t, ""));
        assert!(!tokens_match("", ""));
    }

    #[test]
    fn scoped_sessions_open_only_their_scope() {
        let store = SessionStore::default();
        let own = MemoryScope::new("a", "u").unwrap();
        let s = store.create("k".into(), Grant::Scope(own.clone())).unwrap();
        assert_eq!(s.scope("a", "u").unwrap(), own);
        assert!(s.scope("a", "v").is_err());
        let admin = store.create("k".into(), Grant::Admin).unwrap();
        assert!(admin.scope("b", "v").is_ok());
        assert!(store.get(&s.id).is_some());
        store.remove(&s.id);
        assert!(store.get(&s.id).is_none());
    }

    #[test]
    fn cookies_carry_their_flags() {
        let c = set_cookie(SESSION_COOKIE, "x", true, Some(SESSION_TTL));
        for flag in [
            "HttpOnly",
            "SameSite=Strict",
            "Secure",
            "Path=/",
            "Max-Age=43200",
        ] {
            assert!(c.contains(flag), "{c}");
        }
        assert!(!set_cookie(SESSION_COOKIE, "x", false, None).contains("Secure"));
        let mut headers = HeaderMap::new();
        headers.insert(COOKIE, "a=1; agcore_session=abc".parse().unwrap());
        assert_eq!(
            cookie_value(&headers, SESSION_COOKIE).as_deref(),
            Some("abc")
        );
    }
}
