//! The OpenAI-compatible HTTP clients' shared parts (configuration, HTTP
//! client, error mapping) and, with the `chat` feature, [`OpenAiProvider`]:
//! any OpenAI-compatible `/chat/completions` endpoint over HTTP.

mod config;
pub(crate) mod http;
mod http_error;
#[cfg(feature = "chat")]
mod provider;

pub use config::{DEFAULT_BASE_URL, OpenAiConfig};
#[cfg(feature = "chat")]
pub use provider::OpenAiProvider;
