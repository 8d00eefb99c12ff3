//! The memory attachments of `agcore chat` (`memory.stores` and `agents` in
//! the configuration file; see `docs/memory-attachments.md`).

use std::path::PathBuf;
use std::sync::Arc;

use agcore::attach::{AttachConfig, MemoryManager, StoreContext};

use crate::config::AppConfig;
use crate::error::CliError;

/// The store context of `config`: the facade's embedders and backends,
/// relative paths resolved against the file's folder, and `memory_path:
/// auto` kept in `<data dir>/attachments/<agent>/` (when a data dir is known).
pub fn context(config: &AttachConfig, agent: &str) -> StoreContext {
    StoreContext {
        session_dir: session_dir(agent),
        ..agcore::attach::context_for(config)
    }
}

fn session_dir(agent: &str) -> Option<PathBuf> {
    let safe: String = agent
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    crate::config::data_dir()
        .ok()
        .map(|dir| dir.join("attachments").join(safe))
}

/// The attachments of the agent `agent` of the configuration file, loaded
/// (files indexed, stored items read) so a broken store fails before the
/// first prompt. `None` when the file has no `agents` section.
///
/// # Errors
/// [`CliError::Agent`]: an agent the file does not have (listing those it
/// has), an unknown store type, a bad store `config`, a store that cannot
/// be opened or loaded.
pub async fn open_manager(
    config: &AppConfig,
    agent: &str,
) -> Result<Option<Arc<MemoryManager>>, CliError> {
    let attach = &config.attach;
    if attach.agents.is_empty() {
        return Ok(None);
    }
    let manager = MemoryManager::from_config(
        attach,
        agent,
        &agcore::attach::registry(),
        &context(attach, agent),
    )
    .await?;
    manager.load().await?;
    Ok(Some(Arc::new(manager)))
}
