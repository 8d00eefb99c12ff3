//! Configurable memory attachments (seed 003; see `docs/memory-attachments.md`):
//! named stores declared in a YAML or TOML file, attached to agents with
//! rules for when they are read and whether they are written.
//!
//! - [`AttachConfig`]: `memory.stores` ([`StoreDeclaration`]) and
//!   `agents[].memories` ([`AttachmentConfig`]), read by
//!   [`AttachConfig::load`] / [`AttachConfig::parse`]; `${VAR}` secrets
//!   ([`Secret`]); every error an [`AttachError`] naming the file and path.
//! - [`MemoryStoreRegistry`]: store types by name, the built-ins and a
//!   user's own ([`MemoryStoreRegistry::register`]); [`StoreContext`] with
//!   the [`EmbedderFactory`] and [`BackendOpener`] factories use.
//! - The stores ([`AttachedStore`], persisting [`AttachedItem`]s):
//!   [`stores::simple`], [`stores::blackboard`].
//! - [`schema`]: the JSON Schema of the configuration.

mod config;
mod dense;
mod embedding;
mod error;
mod interpolate;
mod item;
mod keys;
mod load;
mod path;
mod persist;
mod registry;
mod schema;
mod similarity;
mod store;
pub mod stores;

pub use config::{
    AgentMemories, AttachConfig, AttachmentConfig, MemorySection, Stage, StoreDeclaration,
};
pub use embedding::{
    DefaultEmbedders, EmbedderFactory, EmbeddingParams, EmbeddingProviderKind, EmbeddingSettings,
};
pub use error::{AttachError, ConfigLocation};
pub use interpolate::{ProcessEnv, Secret, VarSource, interpolate, scrub};
pub use item::{AttachedItem, INPUT_PREVIEW_CHARS, messages_text, summary_hash};
pub use keys::parse_config;
pub use load::ConfigFormat;
pub use persist::AUTO;
pub use registry::{
    BackendOpener, MemoryStoreRegistry, StoreContext, StoreFuture, StoreSpec, parse_store_config,
};
pub use schema::schema;
pub use similarity::{jaccard, rescore};
pub use store::{AttachedStore, Recalled, UpdateOutcome};
