//! Bearer-key authentication and the caller's scope.
//!
//! [`authenticate`] runs before every route but `/health`: it checks the
//! `Authorization: Bearer <key>` header against the [`KeyStore`](crate::keys::KeyStore)
//! and stores the [`Caller`] in the request's extensions. Handlers get the
//! memory they may touch from [`CallerScope`]: a scoped key's own scope (the
//! request cannot name another), or for an admin key the `{agent}` / `{user}`
//! of an admin path.

use std::sync::Arc;

use agcore::memory::long_term::{MemoryScope, ScopedMemory};
use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::keys::Grant;
use crate::{AppState, ServerError};

/// The authenticated caller of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The key's public id (safe to log).
    pub key_id: String,
    /// What the key may do.
    pub grant: Grant,
}

/// The bearer key of `parts`, if any.
fn bearer(parts: &axum::http::HeaderMap) -> Option<&str> {
    let value = parts.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, key) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| key.trim())
        .filter(|k| !k.is_empty())
}

/// Middleware: 401 without a known bearer key, else the [`Caller`] goes into
/// the request's extensions.
pub async fn authenticate(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(key) = bearer(request.headers()) else {
        return ServerError::Unauthorized(
            "missing `Authorization: Bearer <key>` header (create a key with `agcore serve keys create`)"
                .into(),
        )
        .into_response();
    };
    let Some(record) = state.keys.verify(key) else {
        return ServerError::Unauthorized("unknown API key".into()).into_response();
    };
    let Some(grant) = record.grant() else {
        return ServerError::Unauthorized("this API key's record is malformed".into())
            .into_response();
    };
    tracing::debug!(key = %record.id, "authenticated");
    request.extensions_mut().insert(Caller {
        key_id: record.id,
        grant,
    });
    next.run(request).await
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ServerError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ServerError::Unauthorized("not authenticated".into()))
    }
}

/// The scope a request may touch, resolved from the key and (for admin keys
/// only) the `{agent}` / `{user}` of the path.
///
/// - A scoped key on `/v1/memories…`: the key's scope.
/// - An admin key on `/v1/scopes/{agent}/{user}/memories…`: that scope.
/// - Any other combination: 403 naming the right route.
#[derive(Debug, Clone)]
pub struct CallerScope(pub ScopedMemory);

/// The scope `caller` may use given the `{agent}` / `{user}` path parameters.
///
/// # Errors
/// [`ServerError::Forbidden`] for a scoped key on an admin path or an admin
/// key on a scoped path; [`ServerError::Invalid`] for an invalid scope.
pub fn resolve_scope(
    caller: &Caller,
    path_scope: Option<(&str, &str)>,
) -> Result<MemoryScope, ServerError> {
    match (&caller.grant, path_scope) {
        (Grant::Scope(scope), None) => Ok(scope.clone()),
        (Grant::Admin, Some((agent, user))) => Ok(MemoryScope::new(agent, user)?),
        (Grant::Scope(_), Some(_)) => Err(ServerError::Forbidden(
            "this key is bound to one scope: use /v1/memories (the scope comes from the key)"
                .into(),
        )),
        (Grant::Admin, None) => Err(ServerError::Forbidden(
            "an admin key names the scope: use /v1/scopes/{agent}/{user}/memories".into(),
        )),
    }
}

impl FromRequestParts<Arc<AppState>> for CallerScope {
    type Rejection = ServerError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, state).await?;
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| ServerError::Invalid(e.body_text()))?;
        let find = |name: &str| params.iter().find(|(k, _)| *k == name).map(|(_, v)| v);
        let path_scope = find("agent").zip(find("user"));
        let scope = resolve_scope(&caller, path_scope)?;
        Ok(Self(state.memory.scoped(scope)))
    }
}

/// The `{id}` of a memory route.
#[derive(Debug, Clone, Copy)]
pub struct MemoryId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for MemoryId {
    type Rejection = ServerError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| ServerError::Invalid(e.body_text()))?;
        let id = params
            .iter()
            .find(|(k, _)| *k == "id")
            .map(|(_, v)| v)
            .ok_or_else(|| ServerError::Invalid("the route has no memory id".into()))?;
        id.parse()
            .map(Self)
            .map_err(|_| ServerError::Invalid("a memory id is an integer".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(grant: Grant) -> Caller {
        Caller {
            key_id: "k".into(),
            grant,
        }
    }

    #[test]
    fn scoped_keys_never_take_the_scope_from_the_path() {
        let own = MemoryScope::new("a", "u").unwrap();
        let scoped = caller(Grant::Scope(own.clone()));
        assert_eq!(resolve_scope(&scoped, None).unwrap(), own);
        assert!(matches!(
            resolve_scope(&scoped, Some(("a", "u"))),
            Err(ServerError::Forbidden(_))
        ));
        assert!(matches!(
            resolve_scope(&scoped, Some(("b", "v"))),
            Err(ServerError::Forbidden(_))
        ));
    }

    #[test]
    fn admin_keys_name_the_scope() {
        let admin = caller(Grant::Admin);
        assert_eq!(
            resolve_scope(&admin, Some(("b", "v"))).unwrap(),
            MemoryScope::new("b", "v").unwrap()
        );
        assert!(matches!(
            resolve_scope(&admin, None),
            Err(ServerError::Forbidden(_))
        ));
    }

    #[test]
    fn bearer_is_parsed() {
        let mut headers = axum::http::HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(AUTHORIZATION, "Bearer  agk_x ".parse().unwrap());
        assert_eq!(bearer(&headers), Some("agk_x"));
        headers.insert(AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&headers), None);
    }
}
