//! The agent form: its fields, and the record they describe.

use serde::{Deserialize, Serialize};

use crate::ServerError;
use crate::agents::{AgentMemory, AgentRecord};

/// Most memories an agent may prefetch per turn through the page.
pub const MAX_PREFETCH: usize = 100;

/// The form's backend choice and location for a stored `backend_url`.
pub fn backend_parts(url: Option<&str>) -> (&'static str, String) {
    match url {
        None => ("server", String::new()),
        Some(u) if u.starts_with("mysql://") || u.starts_with("mariadb://") => ("mysql", u.into()),
        Some(u) => (
            "sqlite",
            u.strip_prefix("sqlite://").unwrap_or(u).to_owned(),
        ),
    }
}

/// The agent form's fields.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct AgentForm {
    /// The session's CSRF token.
    #[serde(default, skip_serializing)]
    pub csrf: String,
    /// The agent's name (new agents).
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    instructions: String,
    #[serde(default)]
    model: String,
    /// Present (`on`) when the memory checkbox is ticked.
    #[serde(default)]
    memory_enabled: Option<String>,
    #[serde(default)]
    backend: String,
    #[serde(default)]
    backend_location: String,
    #[serde(default)]
    prefetch_limit: String,
    #[serde(default)]
    attachments: String,
}

impl AgentForm {
    /// The form showing `agent`.
    pub fn from_record(agent: &AgentRecord) -> Self {
        let (backend, location) = backend_parts(agent.memory.backend_url.as_deref());
        Self {
            csrf: String::new(),
            name: agent.name.clone(),
            description: agent.description.clone(),
            instructions: agent.instructions.clone(),
            model: agent.model.clone().unwrap_or_default(),
            memory_enabled: agent.memory.enabled.then(|| "on".to_owned()),
            backend: backend.to_owned(),
            backend_location: location,
            prefetch_limit: agent.memory.prefetch_limit.to_string(),
            attachments: agent.memory.attachments.join(", "),
        }
    }

    /// The record the form describes.
    pub fn to_record(&self, name: &str) -> Result<AgentRecord, ServerError> {
        let location = self.backend_location.trim();
        let backend_url = match self.backend.as_str() {
            "" | "server" => None,
            "sqlite" if location.is_empty() => {
                return Err(ServerError::Invalid(
                    "SQLite needs a database file path".into(),
                ));
            }
            "sqlite" if location.starts_with("sqlite:") => Some(location.to_owned()),
            "sqlite" => Some(format!("sqlite://{location}")),
            "mysql" if location.starts_with("mysql://") || location.starts_with("mariadb://") => {
                Some(location.to_owned())
            }
            "mysql" => {
                return Err(ServerError::Invalid(
                    "MySQL needs a URL such as mysql://user:password@host/database".into(),
                ));
            }
            other => return Err(ServerError::Invalid(format!("unknown backend `{other}`"))),
        };
        let prefetch_limit = match self.prefetch_limit.trim() {
            "" => AgentMemory::default().prefetch_limit,
            text => text
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= MAX_PREFETCH)
                .ok_or_else(|| {
                    ServerError::Invalid(format!(
                        "the prefetch count is a whole number from 0 to {MAX_PREFETCH}"
                    ))
                })?,
        };
        let attachments = self
            .attachments
            .split([',', '\n'])
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect();
        Ok(AgentRecord {
            name: name.trim().to_owned(),
            description: self.description.trim().to_owned(),
            instructions: self.instructions.trim().to_owned(),
            model: Some(self.model.trim().to_owned()).filter(|m| !m.is_empty()),
            memory: AgentMemory {
                enabled: self.memory_enabled.is_some(),
                backend_url,
                prefetch_limit,
                attachments,
            },
        })
    }
}
