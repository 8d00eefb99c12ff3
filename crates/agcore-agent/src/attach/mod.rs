//! Configurable memory attachments (seed 003; see `docs/memory-attachments.md`):
//! named stores declared in a YAML or TOML file, attached to agents with
//! rules for when they are read and whether they are written.
//!
//! - [`AttachConfig`]: `memory.stores` ([`StoreDeclaration`]) and
//!   `agents[].memories` ([`AttachmentConfig`]), read by
//!   [`AttachConfig::load`] / [`AttachConfig::parse`]; `${VAR}` secrets
//!   ([`Secret`]); every error an [`AgentError`](crate::AgentError) naming the file and path.
//! - [`MemoryStoreRegistry`]: store types by name, the built-ins and a
//!   user's own ([`MemoryStoreRegistry::register`]); [`StoreContext`] with
//!   the [`EmbedderFactory`] and [`BackendOpener`] factories use.
//! - The stores ([`AttachedStore`], persisting [`AttachedItem`]s):
//!   [`stores::simple`], [`stores::file`], [`stores::blackboard`].
//! - [`MemoryManager`]: one agent's attachments — `load`, `retrieve(stage,
//!   query)` giving one [`MemoryBlock`] under a header (rendered as quoted
//!   data like `<memory-context>`), `update(input, output)`, `save`.
//! - [`schema`]: the JSON Schema of the configuration.

mod chunking;
mod config;
mod dense;
mod devall;
mod embedding;
mod factory;
mod file_index;
mod file_sync;
mod interpolate;
mod item;
mod keys;
mod load;
mod location;
mod manager;
mod path;
mod persist;
mod registry;
mod render;
mod schema;
mod similarity;
mod store;
pub mod stores;

pub use chunking::{ChunkStrategy, ChunkingConfig, TextChunk, chunk_file, windows};
pub use config::{
    AgentMemories, AttachConfig, AttachmentConfig, MemorySection, Stage, StoreDeclaration,
};
pub use embedding::{
    DefaultEmbedders, EmbedderFactory, EmbeddingParams, EmbeddingProviderKind, EmbeddingSettings,
};
pub use factory::{BackendOpener, StoreContext, StoreSpec, parse_store_config};
pub use file_index::{FileIndex, INDEX_FORMAT, IndexedChunk, IndexedFile};
pub use file_sync::{IndexStats, LoadProgress, ProgressFn};
pub use interpolate::{ProcessEnv, Secret, VarSource, interpolate, scrub};
pub use item::{AttachedItem, INPUT_PREVIEW_CHARS, messages_text, summary_hash};
pub use keys::parse_config;
pub use load::ConfigFormat;
pub use location::ConfigLocation;
pub use manager::MemoryManager;
pub use persist::AUTO;
pub use registry::{MemoryStoreRegistry, StoreFuture};
pub use render::{DATA_NOTICE, DEFAULT_HEADER, MemoryBlock, render};
pub use schema::schema;
pub use similarity::{LexicalMeasure, jaccard, lcs, rescore, rescore_with};
pub use store::{AttachedStore, Recalled, UpdateOutcome};
