//! agcore's memory as a server: an HTTP JSON API and an MCP server (streamable
//! HTTP at `/mcp`, stdio for `agcore mcp`), with API keys that bind each
//! caller to its (agent, user) scope.
//!
//! The server is a [`router`] over an [`AppState`] in an `Arc`; [`serve`]
//! runs it on a socket with graceful shutdown. See `docs/server.md`.
//!
//! ```no_run
//! # async fn run() -> Result<(), agcore_server::ServerError> {
//! use std::sync::Arc;
//! use agcore_server::{AppState, KeyStore};
//!
//! let storage = agcore::memory::open("memory://").await?;
//! let state = AppState::new(storage.long_term()?, KeyStore::open("keys.json")?);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8377").await?;
//! agcore_server::serve(listener, Arc::new(state), agcore_server::shutdown_signal()).await
//! # }
//! ```

mod access_log;
pub mod agents;
pub mod auth;
pub mod chat;
mod error;
pub mod keys;
pub mod mcp;
pub mod openapi;
mod rate;
pub mod routes;
mod serve;
mod state;
pub mod web;

pub use agents::{AgentMemory, AgentRecord, AgentStore};
pub use chat::{ChatEvent, ChatRequest, ChatRuntime, chat_turn};
pub use error::ServerError;
pub use keys::{Grant, KeyRecord, KeyStore};
pub use mcp::MemoryMcp;
pub use openapi::openapi;
pub use routes::router::router;
pub use serve::{serve, serve_stdio, shutdown_signal};
pub use state::{AppState, Limits};

/// Default port of `agcore serve`.
pub const DEFAULT_PORT: u16 = 8377;
