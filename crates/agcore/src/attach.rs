//! Memory attachments (seed 003; see `docs/memory-attachments.md`): named
//! stores declared in a YAML or TOML file and attached to agents.
//!
//! Everything of [`agcore_agent::attach`], plus what only this crate can
//! supply because it holds every backend and embedder:
//!
//! - [`Embedders`]: an [`EmbedderFactory`] that opens `local` model folders
//!   (feature `local-embeddings`) besides `openai` and `hashing`;
//! - [`Backends`]: a [`BackendOpener`] over [`crate::memory::open`], so a
//!   `simple` or `blackboard` store's `memory_path` may be any storage URL
//!   this build supports (`sqlite:///…`, `postgres://…`, `redis://…`, …);
//! - [`registry`] and [`context`] / [`context_for`]: the built-in store
//!   types and a [`StoreContext`] wired with both.
//!
//! # Examples
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use agcore::attach::{AttachConfig, ConfigFormat, MemoryManager, Stage};
//!
//! let yaml = r#"
//! memory:
//!   stores:
//!     - { name: notes, type: blackboard, config: { max_items: 10 } }
//! agents:
//!   - name: assistant
//!     memories: [{ name: notes, write: true }]
//! "#;
//! let config = AttachConfig::parse(yaml, ConfigFormat::Yaml, None)?;
//! let manager = MemoryManager::from_config(
//!     &config,
//!     "assistant",
//!     &agcore::attach::registry(),
//!     &agcore::attach::context_for(&config),
//! )
//! .await?;
//! assert!(manager.retrieve(Stage::Pre, "anything").await?.is_none());
//! # Ok(()) }
//! ```

use std::sync::Arc;

pub use agcore_agent::attach::*;

use agcore_llm::LlmError;
use agcore_llm::embedding::EmbeddingModel;
use async_trait::async_trait;

use crate::embedding::{EmbeddingConfig, EmbeddingProvider, open_embedder};
use crate::memory::{MemoryError, MemoryStore};

/// The [`EmbedderFactory`] of this crate: `local` through
/// [`crate::embedding::open_embedder`] (`params.model_path`, the folder of a
/// BERT-family model; `model` is the id recorded with vectors; feature
/// `local-embeddings`), `openai` and `hashing` as [`DefaultEmbedders`]
/// (`openai` with feature `openai`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Embedders;

#[async_trait]
impl EmbedderFactory for Embedders {
    /// The model `settings` describe.
    ///
    /// # Errors
    /// [`LlmError::Config`] for `local` or `onnx` without `params.model_path`, an
    /// unusable folder, or a provider whose feature is off; connection
    /// errors from probing an `openai` server.
    async fn open(
        &self,
        settings: &EmbeddingSettings,
    ) -> Result<Arc<dyn EmbeddingModel>, LlmError> {
        match settings.provider {
            EmbeddingProviderKind::Local | EmbeddingProviderKind::Onnx => {
                let (provider, name) = if settings.provider == EmbeddingProviderKind::Onnx {
                    (EmbeddingProvider::Onnx, "onnx")
                } else {
                    (EmbeddingProvider::Local, "local")
                };
                if settings.params.model_path.is_none() {
                    return Err(LlmError::Config(format!(
                        "embedding provider `{name}` needs `params.model_path` (a model folder)"
                    )));
                }
                let config = EmbeddingConfig {
                    provider,
                    model: settings.model.clone(),
                    model_path: settings.params.model_path.clone(),
                    dimensions: settings.params.dimensions,
                    ..EmbeddingConfig::default()
                };
                open_embedder(&config).await
            }
            EmbeddingProviderKind::Openai | EmbeddingProviderKind::Hashing => {
                DefaultEmbedders.open(settings).await
            }
        }
    }
}

/// The [`BackendOpener`] of this crate: [`crate::memory::open`]`(url)`'s
/// store. The URL schemes are those of the backends compiled in (see
/// [`crate::memory`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Backends;

#[async_trait]
impl BackendOpener for Backends {
    /// The store of the backend at `url`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for an unsupported scheme (naming the
    /// feature that enables it); the backend's connection errors.
    async fn open(&self, url: &str) -> Result<Arc<dyn MemoryStore>, MemoryError> {
        Ok(crate::memory::open(url).await?.store())
    }

    /// A [`crate::memory::SqliteStore`] in `path` (feature `sqlite`, on by
    /// default); `None` without that feature.
    ///
    /// # Errors
    /// SQLite's errors opening or migrating the file.
    async fn open_index(
        &self,
        path: &std::path::Path,
    ) -> Result<Option<Arc<dyn MemoryStore>>, MemoryError> {
        #[cfg(feature = "sqlite")]
        {
            let store = crate::memory::SqliteStore::open(path).await?;
            Ok(Some(Arc::new(store)))
        }
        #[cfg(not(feature = "sqlite"))]
        {
            let _ = path;
            Ok(None)
        }
    }
}

/// A registry with the built-in store types `simple`, `file` and
/// `blackboard` ([`MemoryStoreRegistry::with_builtins`]); add your own with
/// [`MemoryStoreRegistry::register`].
pub fn registry() -> MemoryStoreRegistry {
    MemoryStoreRegistry::with_builtins()
}

/// A [`StoreContext`] with [`Embedders`] and [`Backends`], `${VAR}` read
/// from the process environment, no session directory (`memory_path: auto`
/// is then an error; set [`StoreContext::session_dir`]) and relative paths
/// kept relative to the working directory.
pub fn context() -> StoreContext {
    StoreContext {
        embedders: Arc::new(Embedders),
        backends: Some(Arc::new(Backends)),
        ..StoreContext::default()
    }
}

/// [`context`] with relative paths resolved against the folder of the file
/// `config` was read from (when it was read from one).
pub fn context_for(config: &AttachConfig) -> StoreContext {
    StoreContext {
        base_dir: config
            .file
            .as_deref()
            .and_then(std::path::Path::parent)
            .map(std::path::Path::to_path_buf),
        ..context()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn local_needs_a_model_path_and_hashing_opens() {
        let local = EmbeddingSettings {
            provider: EmbeddingProviderKind::Local,
            ..EmbeddingSettings::default()
        };
        let err = Embedders.open(&local).await.err().unwrap();
        assert!(err.to_string().contains("params.model_path"), "{err}");
        let onnx = EmbeddingSettings {
            provider: EmbeddingProviderKind::Onnx,
            ..EmbeddingSettings::default()
        };
        let err = Embedders.open(&onnx).await.err().unwrap().to_string();
        assert!(err.contains("`onnx` needs `params.model_path`"), "{err}");
        let parsed: EmbeddingSettings =
            toml::from_str("provider = \"onnx\"\nparams = { model_path = \"m\" }").unwrap();
        assert_eq!(parsed.provider, EmbeddingProviderKind::Onnx);
        let hashing = EmbeddingSettings {
            provider: EmbeddingProviderKind::Hashing,
            params: EmbeddingParams {
                dimensions: Some(16),
                ..EmbeddingParams::default()
            },
            ..EmbeddingSettings::default()
        };
        assert_eq!(Embedders.open(&hashing).await.unwrap().dimensions(), 16);
    }

    #[test]
    fn context_for_resolves_against_the_files_folder() {
        let config = AttachConfig {
            file: Some("/etc/agcore/agents.yaml".into()),
            ..AttachConfig::default()
        };
        let ctx = context_for(&config);
        assert!(ctx.backends.is_some());
        assert_eq!(
            ctx.resolve(std::path::Path::new("memory/board.json")),
            std::path::Path::new("/etc/agcore/memory/board.json")
        );
    }
}
