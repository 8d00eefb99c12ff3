//! `agcore.toml`: where it is found, what it holds, and the standard paths.
//!
//! The file is TOML, or YAML when its name ends in `.yaml` / `.yml` (the
//! same keys either way). It holds memory attachments (`memory.stores` and
//! `agents`, see `docs/memory-attachments.md`, read into
//! [`AppConfig::attach`]), the memory sections (`[memory]`, `[memory.long_term]`,
//! `[memory.inject]`, `[memory_agent]`, …, parsed by [`MemorySettings`]; every
//! key in `docs/configuration.md`), the program's `[llm]` endpoint section,
//! `[storage]`, and `[embedding]` / `[retrieval]` for dense and hybrid search.
//! Any other key is an error naming the nearest valid one.
//! Lookup order: `--config PATH`, `$AGCORE_CONFIG`, then
//! `<config dir>/agcore.toml` (`directories`, e.g. `~/.config/agcore/agcore.toml`).
//! A missing file in the config dir is not an error: every key has a default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agcore::attach::{AttachConfig, ConfigFormat};
use agcore::embedding::EmbeddingConfig;
use agcore::memory::hybrid::HybridConfig;
use agcore::memory::long_term::suggest::{self, Notation};
use agcore::memory::long_term::{BackendKind, MemorySettings};
use serde::Deserialize;

use crate::error::CliError;

/// File name looked up in the user's config dir.
pub const CONFIG_FILE: &str = "agcore.toml";

/// The top-level keys of the file.
const TOP_LEVEL_KEYS: [&str; 9] = [
    "llm",
    "providers",
    "nodes",
    "storage",
    "embedding",
    "retrieval",
    "memory",
    "memory_agent",
    "agents",
];

/// Keys read by the memory attachments, beside those of [`MemorySettings`].
const ATTACHMENT_PATHS: [&str; 2] = ["memory.stores", "memory.attachment_header"];

/// `[llm]`: the chat endpoint. Environment variables override these keys,
/// command-line flags override both. `Debug` shows whether an `api_key` is
/// set, never the key.
#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmSection {
    /// OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1` (`OPENAI_BASE_URL`).
    pub base_url: Option<String>,
    /// API key (`OPENAI_API_KEY`); prefer the variable over a key in a file.
    pub api_key: Option<String>,
    /// Model id (`AGCORE_MODEL`).
    pub model: Option<String>,
    /// Seconds allowed to connect (default 10).
    pub connect_timeout_secs: Option<u64>,
    /// Most tokens of one reply (default: the server's).
    pub max_tokens: Option<u32>,
}

impl std::fmt::Debug for LlmSection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSection")
            .field("base_url", &self.base_url)
            .field("has_api_key", &self.api_key.is_some())
            .field("model", &self.model)
            .field("connect_timeout_secs", &self.connect_timeout_secs)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

/// The parsed configuration and where it came from.
#[derive(Debug, Clone)]
pub struct AppConfig {
    /// The file read, `None` when none exists.
    pub path: Option<PathBuf>,
    /// `[memory]` and `[memory_agent]`.
    pub settings: MemorySettings,
    /// `[llm]`.
    pub llm: LlmSection,
    /// `memory.long_term.path` when the file sets it (resolved against the file's folder).
    pub memory_db: Option<PathBuf>,
    /// `[storage] url` when the file sets it (a relative file path resolved against the
    /// file's folder): where chat, memory and wiki commands keep their data.
    pub storage_url: Option<String>,
    /// Whether the file sets `memory_agent.enabled` itself.
    pub extraction_configured: bool,
    /// `[embedding]`: the embedding model of dense retrieval; `None` keeps
    /// retrieval lexical.
    pub embedding: Option<EmbeddingConfig>,
    /// `[retrieval]`: how lexical and dense results are fused.
    pub retrieval: HybridConfig,
    /// `memory.stores`, `memory.attachment_header` and `agents` (or seed
    /// 003's `memory:` list and `nodes:`): the memory attachments and the
    /// agents' own settings (empty when the file declares none).
    pub attach: AttachConfig,
    /// `[providers.NAME]`: named endpoints agents choose with `provider`.
    pub providers: BTreeMap<String, LlmSection>,
    /// Where long-term memory lives when the configuration says so itself
    /// (`memory.long_term.backend` other than `sqlite`, or an agent's
    /// `memory.backend` / `sqlite_path`); it comes before `[storage] url`.
    pub long_term_location: Option<String>,
    /// Whether `llm` holds an agent's own `provider` / `model`, which then
    /// come before `OPENAI_BASE_URL` / `AGCORE_MODEL`.
    pub agent_endpoint: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ProgramSections {
    llm: LlmSection,
    providers: BTreeMap<String, LlmSection>,
    storage: StorageSection,
    embedding: Option<EmbeddingConfig>,
    retrieval: HybridConfig,
}

/// `[storage]`: where memory lives.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct StorageSection {
    /// A storage URL (`sqlite:///…`, `postgres://…`, `redis://…`,
    /// `json-file:///…`, `memory://`) or a SQLite file path.
    url: Option<String>,
}

impl AppConfig {
    /// Loads the configuration: `explicit` (from `--config` or `$AGCORE_CONFIG`,
    /// which must exist) or the user's config file when present.
    ///
    /// # Errors
    /// [`CliError::Config`] for a missing explicit file, a TOML syntax error,
    /// an unknown key or an invalid value, naming the file.
    pub fn load(explicit: Option<&Path>) -> Result<Self, CliError> {
        let (path, required) = match explicit {
            Some(path) => (Some(path.to_path_buf()), true),
            None => (default_config_path(), false),
        };
        let Some(path) = path else {
            return Ok(Self::defaults());
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if !required && err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::defaults());
            }
            Err(err) => {
                return Err(CliError::Config(format!(
                    "cannot read the configuration file {}: {err}",
                    path.display()
                )));
            }
        };
        Self::parse(&text, &path)
    }

    /// Parses the text of the file at `path`.
    ///
    /// # Errors
    /// As [`AppConfig::load`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, CliError> {
        let bad = |message: String| {
            CliError::Config(format!(
                "{} is not a valid configuration: {}",
                path.display(),
                one_line(&message)
            ))
        };
        let format = format_of(path);
        let attach = AttachConfig::parse(text, format, Some(path))?;
        let mut table = crate::config_doc::table(text, format).map_err(bad)?;
        crate::config_doc::remove_attachment_keys(&mut table);
        let notation = match format {
            ConfigFormat::Toml => Notation::Toml,
            ConfigFormat::Yaml => Notation::Plain,
        };
        suggest::check_top_level(&table, &TOP_LEVEL_KEYS, notation, false).map_err(bad)?;
        let settings: MemorySettings =
            suggest::from_table(&table, notation, &ATTACHMENT_PATHS).map_err(bad)?;
        settings.validate().map_err(|e| bad(e.to_string()))?;
        let program: ProgramSections = suggest::from_table(&table, notation, &[]).map_err(bad)?;
        let memory = table.get("memory").and_then(toml::Value::as_table);
        let memory_db = memory
            .and_then(|m| m.get("long_term"))
            .and_then(toml::Value::as_table)
            .and_then(|lt| lt.get("path"))
            .map(|_| {
                let folder = path.parent().unwrap_or_else(|| Path::new("."));
                folder.join(&settings.memory.long_term.path)
            });
        let extraction_configured = table
            .get("memory_agent")
            .and_then(toml::Value::as_table)
            .is_some_and(|a| a.contains_key("enabled"));
        let storage_url = program
            .storage
            .url
            .filter(|u| !u.trim().is_empty())
            .map(|u| crate::places::resolve_config_url(u.trim(), path));
        let long_term = &settings.memory.long_term;
        let long_term_location = if long_term.backend == BackendKind::Sqlite {
            None
        } else {
            let place = crate::places::long_term_location(
                &long_term.backend,
                &long_term.path,
                storage_url.as_deref(),
                Some(path),
                "memory.long_term.backend",
            )
            .map_err(|e| bad(e.to_string()))?;
            Some(place)
        };
        Ok(Self {
            path: Some(path.to_path_buf()),
            settings,
            llm: program.llm,
            memory_db,
            storage_url,
            extraction_configured,
            embedding: program.embedding,
            retrieval: program.retrieval,
            attach,
            providers: program.providers,
            long_term_location,
            agent_endpoint: false,
        })
    }

    fn defaults() -> Self {
        Self {
            path: None,
            settings: MemorySettings::default(),
            llm: LlmSection::default(),
            memory_db: None,
            storage_url: None,
            extraction_configured: false,
            embedding: None,
            retrieval: HybridConfig::default(),
            attach: AttachConfig::default(),
            providers: BTreeMap::new(),
            long_term_location: None,
            agent_endpoint: false,
        }
    }

    /// Where the file is or would be read from, for messages.
    pub fn describe_path(&self) -> String {
        self.path
            .clone()
            .or_else(default_config_path)
            .map_or_else(|| CONFIG_FILE.to_owned(), |p| p.display().to_string())
    }
}

/// The syntax of the file at `path`: YAML for `.yaml` / `.yml`, else TOML.
pub fn format_of(path: &Path) -> ConfigFormat {
    ConfigFormat::from_path(path).unwrap_or(ConfigFormat::Toml)
}

/// Collapses a multi-line parser message into one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "agcore")
}

/// `<config dir>/agcore.toml`, `None` when no home directory is known.
pub fn default_config_path() -> Option<PathBuf> {
    project_dirs().map(|d| d.config_dir().join(CONFIG_FILE))
}

/// The user's data dir for agcore (e.g. `~/.local/share/agcore`).
///
/// # Errors
/// [`CliError::Config`] when no home directory is known.
pub fn data_dir() -> Result<PathBuf, CliError> {
    project_dirs()
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| {
            CliError::Config("no home directory is known: pass --db URL or set HOME".to_owned())
        })
}

/// Creates the parent folder of a database file.
///
/// # Errors
/// [`CliError::Io`].
pub fn ensure_parent(path: &Path) -> Result<(), CliError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
