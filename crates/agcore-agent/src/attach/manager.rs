//! [`MemoryManager`]: one agent's attachments at run time (seed 003's
//! `MemoryManager`): `load`, `retrieve(stage, query)`, `update(input,
//! output)`, `save`.

use std::sync::Arc;

use agcore_types::ChatMessage;
use tokio::sync::OnceCell;

use super::config::{AttachConfig, AttachmentConfig, Stage};
use super::factory::StoreContext;
use super::path::{child, one_of};
use super::registry::MemoryStoreRegistry;
use super::render::{DEFAULT_HEADER, MemoryBlock, render};
use super::store::{AttachedStore, UpdateOutcome};
use crate::AgentError;
use crate::attach::ConfigLocation;

struct Attached {
    config: AttachmentConfig,
    store: Arc<dyn AttachedStore>,
}

/// The attachments of one agent. `Send + Sync`; share it as
/// `Arc<MemoryManager>` between the sessions of the agent.
pub struct MemoryManager {
    attachments: Vec<Attached>,
    header: String,
    loaded: OnceCell<()>,
}

impl std::fmt::Debug for MemoryManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryManager")
            .field("header", &self.header)
            .field(
                "attachments",
                &self
                    .attachments
                    .iter()
                    .map(|a| &a.config.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for MemoryManager {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryManager {
    /// No attachments, the [`DEFAULT_HEADER`].
    pub fn new() -> Self {
        Self {
            attachments: Vec::new(),
            header: DEFAULT_HEADER.to_owned(),
            loaded: OnceCell::new(),
        }
    }

    /// Sets the header line of the memory block.
    #[must_use]
    pub fn with_header(mut self, header: impl Into<String>) -> Self {
        self.header = header.into();
        self
    }

    /// Adds an attachment of `store`.
    ///
    /// # Errors
    /// [`AgentError::InvalidConfig`] at the attachment's `write` key when it asks
    /// to write a read-only store.
    pub fn attach(
        mut self,
        config: AttachmentConfig,
        store: Arc<dyn AttachedStore>,
    ) -> Result<Self, AgentError> {
        if config.write && !store.writable() {
            return Err(AgentError::invalid_config(
                child(&config.location, "write"),
                format!(
                    "memory store `{}` is of type `{}`, which is read-only; set `write: false`",
                    store.name(),
                    store.store_type()
                ),
            ));
        }
        self.attachments.push(Attached { config, store });
        Ok(self)
    }

    /// The manager of the agent `agent` of `config`: validates every store
    /// with `registry`, opens the ones the agent attaches (each once) and
    /// takes the header from `memory.attachment_header`.
    ///
    /// # Errors
    /// [`AgentError::InvalidConfig`] when no agent has that name; the registry's
    /// and stores' errors; as [`MemoryManager::attach`].
    pub async fn from_config(
        config: &AttachConfig,
        agent: &str,
        registry: &MemoryStoreRegistry,
        ctx: &StoreContext,
    ) -> Result<Self, AgentError> {
        registry.validate(config, ctx.vars.as_ref())?;
        let Some(entry) = config.agent(agent) else {
            let names: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
            let valid = if names.is_empty() {
                "the file has no `agents` section".to_owned()
            } else {
                format!("agents: {}", one_of(&names))
            };
            return Err(AgentError::invalid_config(
                child(&ConfigLocation::new(config.file.as_deref(), ""), "agents"),
                format!("no agent named `{agent}`; {valid}"),
            ));
        };
        let mut manager = Self::new();
        if let Some(header) = &config.memory.attachment_header {
            manager.header.clone_from(header);
        }
        let mut opened: Vec<Arc<dyn AttachedStore>> = Vec::new();
        for attachment in &entry.memories {
            let store = match opened.iter().find(|s| s.name() == attachment.name) {
                Some(store) => Arc::clone(store),
                None => {
                    let Some(decl) = config.store(&attachment.name) else {
                        return Err(AgentError::invalid_config(
                            child(&attachment.location, "name"),
                            format!("no memory store named `{}`", attachment.name),
                        ));
                    };
                    let store = registry.open(decl, ctx).await?;
                    opened.push(Arc::clone(&store));
                    store
                }
            };
            manager = manager.attach(attachment.clone(), store)?;
        }
        Ok(manager)
    }

    /// The attachments' settings, in order.
    pub fn attachments(&self) -> impl Iterator<Item = &AttachmentConfig> {
        self.attachments.iter().map(|a| &a.config)
    }

    /// Loads every store once (later calls return at once).
    ///
    /// # Errors
    /// The first store's error.
    pub async fn load(&self) -> Result<(), AgentError> {
        self.loaded
            .get_or_try_init(|| async {
                for attached in &self.attachments {
                    attached.store.load().await?;
                }
                Ok::<(), AgentError>(())
            })
            .await
            .map(|_| ())
    }

    /// The memory block for `query` at `stage`: each attachment whose
    /// `read` and `retrieve_stage` allow it gives its `top_k` memories,
    /// those scoring below its `similarity_threshold` dropped (unscored
    /// memories are kept); `None` when nothing is found.
    ///
    /// # Errors
    /// The first store's error.
    pub async fn retrieve(
        &self,
        stage: Stage,
        query: &str,
    ) -> Result<Option<MemoryBlock>, AgentError> {
        self.retrieve_at(&[stage], query).await
    }

    /// As [`MemoryManager::retrieve`] for stages that happen at one point
    /// (a plain turn is both `pre` and `gen`): each attachment that
    /// retrieves at any of `stages` is asked once, so the block holds it once.
    ///
    /// # Errors
    /// The first store's error.
    pub async fn retrieve_at(
        &self,
        stages: &[Stage],
        query: &str,
    ) -> Result<Option<MemoryBlock>, AgentError> {
        self.load().await?;
        let mut hits = Vec::new();
        for attached in self
            .attachments
            .iter()
            .filter(|a| stages.iter().any(|s| a.config.retrieves_at(*s)))
        {
            let threshold = attached.config.similarity_threshold;
            let found = attached
                .store
                .retrieve(query, attached.config.top_k)
                .await?;
            hits.extend(
                found
                    .into_iter()
                    .filter(|hit| threshold <= -1.0 || hit.score.is_none_or(|s| s >= threshold))
                    .take(attached.config.top_k)
                    .map(|hit| (attached.store.name().to_owned(), hit)),
            );
        }
        Ok(render(&self.header, hits))
    }

    /// Records a finished turn in every attachment with `write: true`
    /// (`update`, then `save`). Returns `(store, outcome)` per written store.
    ///
    /// # Errors
    /// The first store's error.
    pub async fn update(
        &self,
        input: &[ChatMessage],
        output: &[ChatMessage],
    ) -> Result<Vec<(String, UpdateOutcome)>, AgentError> {
        self.load().await?;
        let mut out = Vec::new();
        for attached in self.attachments.iter().filter(|a| a.config.write) {
            let outcome = attached.store.update(input, output).await?;
            attached.store.save().await?;
            out.push((attached.store.name().to_owned(), outcome));
        }
        Ok(out)
    }

    /// Saves every written store.
    ///
    /// # Errors
    /// The first store's error.
    pub async fn save(&self) -> Result<(), AgentError> {
        for attached in self.attachments.iter().filter(|a| a.config.write) {
            attached.store.save().await?;
        }
        Ok(())
    }
}
