//! Agents and their memory settings, persisted in a JSON file
//! (`{"agents": [...]}`) or held in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agcore::memory::long_term::MemoryScope;
use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

use crate::ServerError;

/// The memory section of an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentMemory {
    /// Long-term memory on or off for the agent's turns.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Storage URL of the agent's memory (`sqlite:///…`, `mysql://…`; absent: the server's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_url: Option<String>,
    /// Memories recalled before each turn.
    #[serde(default = "default_prefetch")]
    pub prefetch_limit: usize,
    /// Names of the memory stores attached to the agent (`memory.stores` of agcore.toml).
    #[serde(default)]
    pub attachments: Vec<String>,
}

fn yes() -> bool {
    true
}

fn default_prefetch() -> usize {
    5
}

impl Default for AgentMemory {
    fn default() -> Self {
        Self {
            enabled: true,
            backend_url: None,
            prefetch_limit: default_prefetch(),
            attachments: Vec::new(),
        }
    }
}

/// One agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentRecord {
    /// The agent's name (the `agent` of its memory scopes).
    pub name: String,
    /// What the agent is for.
    #[serde(default)]
    pub description: String,
    /// Its system prompt.
    #[serde(default)]
    pub instructions: String,
    /// The model id its chat turns ask for (absent: the server's `[llm] model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its memory settings.
    #[serde(default)]
    pub memory: AgentMemory,
}

impl AgentRecord {
    /// An agent named `name` with the default settings (memory on,
    /// prefetch 5, no instructions): what a chat turn uses for an agent the
    /// store does not hold.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: String::new(),
            instructions: String::new(),
            model: None,
            memory: AgentMemory::default(),
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct AgentFile {
    agents: Vec<AgentRecord>,
}

/// The agents of the server.
#[derive(Debug)]
pub struct AgentStore {
    path: Option<PathBuf>,
    agents: RwLock<BTreeMap<String, AgentRecord>>,
}

fn io(err: impl std::fmt::Display) -> ServerError {
    ServerError::Io(std::io::Error::other(err.to_string()))
}

impl AgentStore {
    /// Agents held in memory only.
    pub fn in_memory() -> Self {
        Self {
            path: None,
            agents: RwLock::new(BTreeMap::new()),
        }
    }

    /// The agents of the file at `path` (absent: none yet).
    ///
    /// # Errors
    /// [`ServerError::Io`] when the file exists and cannot be read or parsed.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, ServerError> {
        let path = path.into();
        let file: AgentFile = match std::fs::read_to_string(&path) {
            Ok(text) => {
                serde_json::from_str(&text).map_err(|e| io(format!("{}: {e}", path.display())))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => AgentFile::default(),
            Err(e) => return Err(e.into()),
        };
        let agents = file
            .agents
            .into_iter()
            .map(|a| (a.name.clone(), a))
            .collect();
        Ok(Self {
            path: Some(path),
            agents: RwLock::new(agents),
        })
    }

    /// Every agent, by name.
    pub async fn list(&self) -> Vec<AgentRecord> {
        self.agents.read().await.values().cloned().collect()
    }

    /// Agent `name`.
    pub async fn get(&self, name: &str) -> Option<AgentRecord> {
        self.agents.read().await.get(name).cloned()
    }

    /// Creates or replaces `agent`; `true` when it is new.
    ///
    /// # Errors
    /// [`ServerError::Invalid`] for a name that cannot be an agent name;
    /// [`ServerError::Io`] when the file cannot be written.
    pub async fn put(&self, agent: AgentRecord) -> Result<bool, ServerError> {
        MemoryScope::new(agent.name.as_str(), "check")?;
        let mut agents = self.agents.write().await;
        let created = agents.insert(agent.name.clone(), agent).is_none();
        if let Some(path) = &self.path {
            let file = AgentFile {
                agents: agents.values().cloned().collect(),
            };
            write_file(path, &file).await?;
        }
        Ok(created)
    }
}

async fn write_file(path: &Path, file: &AgentFile) -> Result<(), ServerError> {
    let text = serde_json::to_string_pretty(file).map_err(io)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        tokio::fs::create_dir_all(parent).await?;
    }
    let tmp = path.with_extension("json.tmp");
    tokio::fs::write(&tmp, text).await?;
    tokio::fs::rename(&tmp, path).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn agents_persist_in_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents.json");
        let store = AgentStore::open(&path).unwrap();
        let mut agent: AgentRecord =
            serde_json::from_str(r#"{"name": "helper", "memory": {"prefetch_limit": 8}}"#).unwrap();
        assert!(agent.memory.enabled);
        assert!(store.put(agent.clone()).await.unwrap());
        agent.memory.enabled = false;
        assert!(!store.put(agent.clone()).await.unwrap());
        let reopened = AgentStore::open(&path).unwrap();
        assert_eq!(reopened.get("helper").await, Some(agent));
        let bad = AgentRecord {
            name: " ".into(),
            ..reopened.get("helper").await.unwrap()
        };
        assert!(store.put(bad).await.is_err());
    }
}
