//! The OpenAPI 3.1 document of the HTTP API, generated from the route
//! handlers' annotations ([`openapi`]) and served at `/openapi.json`.
//! `docs/openapi.json` holds a copy; a test fails when they differ
//! (`UPDATE_OPENAPI=1 cargo test -p agcore-server --test integration openapi`
//! rewrites it).

use axum::Json;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, Parameter, ParameterIn};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{ObjectBuilder, PathItem, RefOr, Required, ResponseBuilder, Type};
use utoipa::{Modify, OpenApi};

pub use crate::error::ErrorBody;
use crate::routes::{agents, chat, health, jsonl, memories, search};

/// The routes of one scope, documented under `/v1/memories…` and `/v1/chat`
/// (scoped keys) and copied under `/v1/scopes/{agent}/{user}/…` (admin keys).
const SCOPED_PREFIXES: [&str; 2] = ["/v1/memories", "/v1/chat"];

#[derive(OpenApi)]
#[openapi(
    info(
        title = "agcore server",
        description = "agcore's memory over HTTP: agents, memories per agent + user, search \
                       with the score breakdown, JSONL export / import, chat turns streamed as \
                       SSE. Every route but `/health` and `/openapi.json` needs \
                       `Authorization: Bearer <key>` (`agcore serve keys create`). See docs/server.md."
    ),
    paths(
        health::health,
        openapi_json,
        agents::list,
        agents::create,
        agents::get,
        agents::update,
        chat::chat,
        memories::list,
        memories::add,
        memories::get,
        memories::update,
        memories::delete,
        memories::archive,
        memories::restore,
        memories::weight,
        search::search,
        search::stats,
        jsonl::export,
        jsonl::import,
    ),
    components(schemas(ErrorBody, crate::chat::ChatEvent)),
    modifiers(&BearerKey),
    security(("bearer" = [])),
    tags(
        (name = "agents", description = "Agents and their memory settings."),
        (name = "memories", description = "The memories of one agent + user scope."),
        (name = "chat", description = "A chat turn of an agent, streamed as server-sent events."),
        (name = "server", description = "Health, this document and the MCP endpoint.")
    )
)]
struct ApiDoc;

struct BearerKey;

impl Modify for BearerKey {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// The OpenAPI document of the server: the annotated routes, each scoped
/// route again under `/v1/scopes/{agent}/{user}` for admin keys, and `/mcp`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    let scoped: Vec<(String, PathItem)> = doc
        .paths
        .paths
        .iter()
        .filter(|(path, _)| SCOPED_PREFIXES.iter().any(|p| path.starts_with(p)))
        .map(|(path, item)| (path.clone(), item.clone()))
        .collect();
    for (path, item) in scoped {
        let admin_path = path.replacen("/v1/", "/v1/scopes/{agent}/{user}/", 1);
        doc.paths.paths.insert(admin_path, admin_item(item));
    }
    doc.paths.paths.insert("/mcp".into(), mcp_item());
    doc
}

/// `item` for admin keys: operation ids suffixed `_in_scope`, the
/// `{agent}` and `{user}` path parameters.
fn admin_item(mut item: PathItem) -> PathItem {
    let operations = [
        &mut item.get,
        &mut item.post,
        &mut item.put,
        &mut item.patch,
        &mut item.delete,
    ];
    for operation in operations.into_iter().flatten() {
        if let Some(id) = &mut operation.operation_id {
            id.push_str("_in_scope");
        }
        let mut parameters = vec![scope_parameter("agent"), scope_parameter("user")];
        parameters.extend(operation.parameters.take().unwrap_or_default());
        operation.parameters = Some(parameters);
        let note = "Admin keys: the scope is the path's `{agent}` and `{user}`.";
        operation.description = Some(match operation.description.take() {
            Some(text) if !text.trim().is_empty() => format!("{text}\n\n{note}"),
            _ => note.to_owned(),
        });
    }
    item
}

fn scope_parameter(name: &str) -> RefOr<Parameter> {
    let mut parameter = Parameter::new(name);
    parameter.parameter_in = ParameterIn::Path;
    parameter.required = Required::True;
    parameter.description = Some(format!("The {name} of the scope."));
    parameter.schema = Some(ObjectBuilder::new().schema_type(Type::String).into());
    RefOr::T(parameter)
}

fn mcp_item() -> PathItem {
    let operation = OperationBuilder::new()
        .operation_id(Some("mcp"))
        .tag("server")
        .summary(Some("MCP over streamable HTTP"))
        .description(Some(
            "The memory tools (memory_save, memory_recall, memory_search, memory_list, \
             memory_delete) of the key's scope, as JSON-RPC messages of the Model Context \
             Protocol (streamable HTTP, stateless, JSON answers). Scoped keys only.",
        ))
        .response(
            "200",
            ResponseBuilder::new().description("A JSON-RPC answer."),
        )
        .build();
    PathItem::new(HttpMethod::Post, operation)
}

/// `GET /openapi.json`: the OpenAPI 3.1 document of this API, without a key.
#[utoipa::path(get, path = "/openapi.json", tag = "server", security(()),
    responses((status = 200, description = "This document.", body = serde_json::Value)))]
pub async fn openapi_json() -> Json<&'static utoipa::openapi::OpenApi> {
    static DOCUMENT: std::sync::LazyLock<utoipa::openapi::OpenApi> =
        std::sync::LazyLock::new(openapi);
    Json(&DOCUMENT)
}
