//! `agcore serve` (the HTTP and MCP server), `agcore serve keys create` and
//! `agcore mcp` (the memory tools over stdio): thin callers of `agcore-server`.

mod chat;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use agcore_server::{AgentStore, AppState, Grant, KeyStore, Limits};
use clap::{Args, Subcommand};

use crate::config::{self, AppConfig};
use crate::error::CliError;
use crate::scope::{self, ScopeArgs};

/// Arguments of `agcore serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; loopback unless told otherwise.
    #[arg(long, default_value_t = SocketAddr::from(([127, 0, 0, 1], agcore_server::DEFAULT_PORT)))]
    bind: SocketAddr,
    /// Memory database URL or SQLite path (default as `agcore memory`).
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    /// The API key file (hashes only; default: server-keys.json in the user's data dir).
    #[arg(long, value_name = "FILE", global = true)]
    keys: Option<PathBuf>,
    /// The agents file (default: server-agents.json in the user's data dir).
    #[arg(long, value_name = "FILE")]
    agents: Option<PathBuf>,
    /// Largest request body in bytes (larger: 413).
    #[arg(long, default_value_t = Limits::default().body_bytes)]
    max_body_bytes: usize,
    /// Requests per second each key may make on average (more: 429).
    #[arg(long, default_value_t = Limits::default().requests_per_second)]
    rate: u32,
    /// Requests a key may make at once above the average.
    #[arg(long, default_value_t = Limits::default().burst)]
    burst: u32,
    #[command(subcommand)]
    command: Option<ServeCommand>,
}

#[derive(Debug, Subcommand)]
enum ServeCommand {
    /// API keys of the server.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Creates a key, prints it once (only its SHA-256 hash is stored).
    Create(CreateKeyArgs),
}

/// Arguments of `agcore serve keys create`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("grant").required(true).args(["admin", "agent"]))]
struct CreateKeyArgs {
    /// A key for every scope (admin routes name the scope in their path).
    #[arg(long, conflicts_with_all = ["agent", "user"])]
    admin: bool,
    /// Agent of the key's scope (with --user).
    #[arg(long, requires = "user", value_name = "NAME")]
    agent: Option<String>,
    /// User of the key's scope (with --agent).
    #[arg(long, requires = "agent", value_name = "ID")]
    user: Option<String>,
}

fn keys_path(keys: Option<PathBuf>) -> Result<PathBuf, CliError> {
    match keys {
        Some(path) => Ok(path),
        None => Ok(config::data_dir()?.join("server-keys.json")),
    }
}

fn server_error(err: agcore_server::ServerError) -> CliError {
    CliError::Config(err.to_string())
}

fn create_key(args: &CreateKeyArgs, keys: Option<PathBuf>) -> Result<(), CliError> {
    let grant = match (&args.agent, &args.user) {
        (Some(agent), Some(user)) if !args.admin => Grant::Scope(
            agcore::memory::long_term::MemoryScope::new(agent.clone(), user.clone())
                .map_err(|e| CliError::Invalid(format!("invalid scope: {e}")))?,
        ),
        _ => Grant::Admin,
    };
    let path = keys_path(keys)?;
    let store = KeyStore::open(&path).map_err(server_error)?;
    let (key, record) = store.create(&grant).map_err(server_error)?;
    let what = match &grant {
        Grant::Admin => "admin key".to_owned(),
        Grant::Scope(s) => format!("key for agent `{}`, user `{}`", s.agent(), s.user()),
    };
    eprintln!(
        "created {what} (id {}) in {}; it is shown once:",
        record.id,
        path.display()
    );
    crate::output::emit(&format!("{key}\n"))
}

/// Runs `agcore serve`.
///
/// # Errors
/// Configuration, storage and socket errors.
pub async fn run(args: ServeArgs, config_path: Option<PathBuf>) -> Result<(), CliError> {
    if let Some(ServeCommand::Keys {
        command: KeysCommand::Create(create),
    }) = &args.command
    {
        return create_key(create, args.keys.clone());
    }
    let config = AppConfig::load(config_path.as_deref())?;
    let opened = scope::open_memory(&storage_args(args.db.clone()), &config).await?;
    let keys = KeyStore::open(keys_path(args.keys.clone())?).map_err(server_error)?;
    let agents_path = match args.agents.clone() {
        Some(path) => path,
        None => config::data_dir()?.join("server-agents.json"),
    };
    let agents = AgentStore::open(agents_path).map_err(server_error)?;
    let limits = Limits {
        body_bytes: args.max_body_bytes,
        requests_per_second: args.rate,
        burst: args.burst,
        ..Limits::default()
    };
    let mut hosts = Vec::new();
    if !args.bind.ip().is_loopback() {
        hosts.push(args.bind.ip().to_string());
        hosts.push(args.bind.to_string());
    }
    if !hosts.is_empty() {
        hosts.extend(["localhost", "127.0.0.1", "::1"].map(str::to_owned));
    }
    let chat = chat::runtime(&config).await?;
    let mut state = AppState::new(opened.memory.clone(), keys)
        .with_storage(opened.storage.clone())
        .with_dense(opened.dense.clone())
        .with_agents(agents)
        .with_limits(limits)
        .with_allowed_hosts(hosts);
    if let Some(chat) = chat {
        state = state.with_chat(chat);
    }
    let listener = tokio::net::TcpListener::bind(args.bind).await?;
    tracing::info!(bind = %args.bind, backend = %opened.info(), "agcore serve listening");
    eprintln!(
        "agcore serve: http://{} ({}); the page: http://{}/ui/; stop with Ctrl-C",
        args.bind,
        opened.info(),
        args.bind
    );
    agcore_server::serve(listener, Arc::new(state), agcore_server::shutdown_signal())
        .await
        .map_err(server_error)
}

/// The storage of `--db` opened as `agcore memory` would (the scope is unused).
fn storage_args(db: Option<String>) -> ScopeArgs {
    ScopeArgs {
        agent: scope::DEFAULT_AGENT.to_owned(),
        user: Some("default".to_owned()),
        db,
    }
}

/// Arguments of `agcore mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `agcore mcp`: the memory tools of `--agent` / `--user` over stdio.
///
/// # Errors
/// Configuration and storage errors; a broken stdio transport.
pub async fn run_mcp(args: McpArgs, config_path: Option<PathBuf>) -> Result<(), CliError> {
    let config = AppConfig::load(config_path.as_deref())?;
    let opened = scope::open_memory(&args.scope, &config).await?;
    let scope = args.scope.scope()?;
    let result = agcore_server::serve_stdio(&opened.memory, scope).await;
    opened.finish().await;
    result.map_err(server_error)
}
