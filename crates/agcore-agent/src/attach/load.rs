//! Reading an [`AttachConfig`] from YAML or TOML text: both parse to the
//! same JSON value, then one checker walks it, so both formats accept the
//! same documents and report the same errors.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::config::{
    AgentMemories, AttachConfig, AttachmentConfig, MemorySection, StoreDeclaration,
};
use super::devall;
use super::keys::parse_config;
use super::path::{child, one_of};
use crate::AgentError;
use crate::attach::ConfigLocation;

/// The syntax of a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    /// YAML 1.2 (`.yaml`, `.yml`).
    Yaml,
    /// TOML 1.0 (`.toml`).
    Toml,
}

impl ConfigFormat {
    /// The format of `path`, chosen by its extension.
    ///
    /// # Errors
    /// [`AgentError::InvalidConfig`] for any other extension.
    pub fn from_path(path: &Path) -> Result<Self, AgentError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("yaml" | "yml") => Ok(Self::Yaml),
            Some("toml") => Ok(Self::Toml),
            _ => Err(AgentError::invalid_config(
                ConfigLocation::new(Some(path), ""),
                "unknown configuration format; use a `.yaml`, `.yml` or `.toml` file",
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Yaml => "YAML",
            Self::Toml => "TOML",
        }
    }
}

impl AttachConfig {
    /// Reads the file at `path` (format by extension) and checks it with
    /// [`AttachConfig::parse`].
    ///
    /// # Errors
    /// [`AgentError::Io`] when it cannot be read; as [`AttachConfig::parse`].
    pub async fn load(path: &Path) -> Result<Self, AgentError> {
        let format = ConfigFormat::from_path(path)?;
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|err| AgentError::io(path, &err))?;
        Self::parse(&text, format, Some(path))
    }

    /// Parses `text` and checks its structure: `memory.stores` entries have
    /// exactly `name`, `type` and `config`, names are unique, each
    /// `agents[].memories[]` entry has known keys, `top_k ≥ 1`,
    /// `similarity_threshold` in `[-1, 1]`, and names a declared store.
    /// Other top-level keys, and other keys of `memory`, belong to the rest
    /// of the file and are ignored. Store types and their `config` are
    /// checked by [`MemoryStoreRegistry::validate`](super::MemoryStoreRegistry::validate).
    ///
    /// # Errors
    /// [`AgentError::ConfigSyntax`], [`AgentError::InvalidConfig`] and
    /// [`AgentError::DuplicateStore`], naming `file` and the path in it.
    pub fn parse(
        text: &str,
        format: ConfigFormat,
        file: Option<&Path>,
    ) -> Result<Self, AgentError> {
        let root = ConfigLocation::new(file, "");
        let value = to_value(text, format, &root)?;
        let mut config = AttachConfig {
            file: file.map(Path::to_path_buf),
            ..AttachConfig::default()
        };
        let object = match &value {
            Value::Null => return Ok(config),
            Value::Object(object) => object,
            _ => {
                return Err(AgentError::invalid_config(
                    root,
                    "the document must be a mapping of keys",
                ));
            }
        };
        match object.get("memory") {
            // Seed 003 (DevAll): `memory:` is the list of stores.
            Some(stores @ Value::Array(_)) => {
                let wrapped = serde_json::json!({ "stores": stores });
                config.memory = memory_section(&wrapped, &root)?;
            }
            Some(memory) => config.memory = memory_section(memory, &child(&root, "memory"))?,
            None => {}
        }
        let mut entries = Vec::new();
        if let Some(agents) = object.get("agents") {
            entries.extend(devall::agent_entries(agents, &child(&root, "agents"))?);
        }
        if let Some(nodes) = object.get("nodes") {
            entries.extend(devall::node_entries(nodes, &child(&root, "nodes"))?);
        }
        config.agents = agents_section(&entries, &config.memory)?;
        Ok(config)
    }
}

fn to_value(text: &str, format: ConfigFormat, root: &ConfigLocation) -> Result<Value, AgentError> {
    let parsed = match format {
        // YAML 1.2 Core booleans only: `n`, `no`, `off` stay strings (a store named `n`).
        ConfigFormat::Yaml => serde_saphyr::from_str_with_options::<Value>(
            text,
            serde_saphyr::options! { strict_booleans: true },
        )
        .map_err(|e| e.to_string()),
        ConfigFormat::Toml => toml::from_str::<Value>(text).map_err(|e| e.to_string()),
    };
    parsed.map_err(|message| AgentError::ConfigSyntax {
        location: root.clone(),
        format: format.name(),
        message: message.trim().to_owned(),
    })
}

fn list<'a>(value: &'a Value, at: &ConfigLocation) -> Result<&'a Vec<Value>, AgentError> {
    value
        .as_array()
        .ok_or_else(|| AgentError::invalid_config(at.clone(), "must be a list"))
}

fn memory_section(value: &Value, at: &ConfigLocation) -> Result<MemorySection, AgentError> {
    let Some(object) = value.as_object() else {
        return Err(AgentError::invalid_config(at.clone(), "must be a mapping"));
    };
    let mut section = MemorySection::default();
    if let Some(header) = object.get("attachment_header") {
        section.attachment_header = Some(
            header
                .as_str()
                .ok_or_else(|| {
                    AgentError::invalid_config(child(at, "attachment_header"), "must be a string")
                })?
                .to_owned(),
        );
    }
    let Some(stores) = object.get("stores") else {
        return Ok(section);
    };
    let stores_at = child(at, "stores");
    let mut seen: HashMap<String, ConfigLocation> = HashMap::new();
    for (i, entry) in list(stores, &stores_at)?.iter().enumerate() {
        let here = child(&stores_at, &format!("[{i}]"));
        let mut store: StoreDeclaration = parse_config(entry, &here, &[])?;
        if store.name.trim().is_empty() {
            return Err(AgentError::invalid_config(
                child(&here, "name"),
                "a store name must not be empty",
            ));
        }
        if !store.config.is_object() {
            return Err(AgentError::invalid_config(
                child(&here, "config"),
                "must be a mapping of the type's settings",
            ));
        }
        store.location = here.clone();
        if let Some(first) = seen.get(&store.name) {
            return Err(AgentError::DuplicateStore {
                name: store.name,
                first: first.clone(),
                second: here,
            });
        }
        seen.insert(store.name.clone(), here);
        section.stores.push(store);
    }
    Ok(section)
}

fn agents_section(
    entries: &[(Value, ConfigLocation)],
    memory: &MemorySection,
) -> Result<Vec<AgentMemories>, AgentError> {
    let declared: Vec<&str> = memory.stores.iter().map(|s| s.name.as_str()).collect();
    let mut agents: Vec<AgentMemories> = Vec::new();
    for (entry, here) in entries {
        let mut agent: AgentMemories = parse_config(entry, here, &[])?;
        if let Some(first) = agents.iter().position(|a| a.name == agent.name) {
            return Err(AgentError::invalid_config(
                child(here, "name"),
                format!(
                    "duplicate agent name `{}` (first at `{}`)",
                    agent.name,
                    entries.get(first).map_or("", |(_, at)| at.path.as_str())
                ),
            ));
        }
        let memories_at = child(here, "memories");
        for (j, attachment) in agent.memories.iter_mut().enumerate() {
            attachment.location = child(&memories_at, &format!("[{j}]"));
            check_attachment(attachment, &declared)?;
        }
        agents.push(agent);
    }
    Ok(agents)
}

fn check_attachment(attachment: &AttachmentConfig, declared: &[&str]) -> Result<(), AgentError> {
    let at = &attachment.location;
    if !declared.contains(&attachment.name.as_str()) {
        let valid = if declared.is_empty() {
            "no store is declared under `memory.stores`".to_owned()
        } else {
            format!("declared stores: {}", one_of(declared))
        };
        return Err(AgentError::invalid_config(
            child(at, "name"),
            format!("no memory store named `{}`; {valid}", attachment.name),
        ));
    }
    if attachment.top_k == 0 {
        return Err(AgentError::invalid_config(
            child(at, "top_k"),
            "must be at least 1",
        ));
    }
    if !(-1.0..=1.0).contains(&attachment.similarity_threshold) {
        return Err(AgentError::invalid_config(
            child(at, "similarity_threshold"),
            format!(
                "{} is outside [-1, 1] (-1 keeps every item)",
                attachment.similarity_threshold
            ),
        ));
    }
    if attachment
        .retrieve_stage
        .as_ref()
        .is_some_and(Vec::is_empty)
    {
        return Err(AgentError::invalid_config(
            child(at, "retrieve_stage"),
            "an empty list never retrieves; omit the key for every stage, or set `read: false`",
        ));
    }
    Ok(())
}
