//! `config` of the `file` store: sources, index path, chunking, embedding,
//! and the checks its parser adds.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::AgentError;
use crate::attach::ConfigLocation;
use crate::attach::chunking::ChunkingConfig;
use crate::attach::embedding::EmbeddingSettings;
use crate::attach::factory::parse_store_config;
use crate::attach::interpolate::VarSource;
use crate::attach::path::child;

/// One entry of `file_sources`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileSource {
    /// A folder or a file.
    pub path: PathBuf,
    /// Extensions to read (`[".md", ".mdx"]`); absent or empty: every file.
    #[serde(default)]
    pub file_types: Vec<String>,
    /// Whether sub-folders are read. Default `true`.
    #[serde(default = "yes")]
    pub recursive: bool,
    /// A WHATWG encoding label (`utf-8`, `gbk`, `shift_jis`, …). Default `utf-8`.
    #[serde(default = "utf8")]
    pub encoding: String,
}

fn yes() -> bool {
    true
}

fn utf8() -> String {
    "utf-8".to_owned()
}

/// `config` of a `file` store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileStoreConfig {
    /// The files to index; at least one.
    pub file_sources: Vec<FileSource>,
    /// Where the index is persisted (a JSON file); required.
    pub index_path: String,
    /// How files are cut (500 characters, overlap 50, Markdown-aware).
    #[serde(default)]
    pub chunking: ChunkingConfig,
    /// The embedding model of dense retrieval; absent: BM25 only.
    #[serde(default)]
    pub embedding: Option<EmbeddingSettings>,
    /// Weight of the keyword overlap (Jaccard) in a dense hit's score. Default 0.3.
    #[serde(default = "default_lexical_weight")]
    pub lexical_weight: f64,
    /// Files larger than this (bytes) are skipped and logged, never read.
    /// Default [`DEFAULT_MAX_FILE_BYTES`] (16 MiB).
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
}

/// Default `max_file_bytes` of a `file` store: 16 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

fn default_lexical_weight() -> f64 {
    0.3
}

fn default_max_file_bytes() -> u64 {
    DEFAULT_MAX_FILE_BYTES
}

/// The parser of type `file`: [`parse_store_config`], then at least one
/// source, known encodings, `chunking.size ≥ 1` and `overlap < size`.
///
/// # Errors
/// [`AgentError::InvalidConfig`] at the offending key.
pub fn parse_file_config(
    value: &Value,
    at: &ConfigLocation,
    vars: &dyn VarSource,
) -> Result<FileStoreConfig, AgentError> {
    let config: FileStoreConfig = parse_store_config(value, at, vars)?;
    if config.file_sources.is_empty() {
        return Err(AgentError::invalid_config(
            child(at, "file_sources"),
            "a file store needs at least one source, e.g. `file_sources: [{path: docs/, file_types: [.md]}]`",
        ));
    }
    for (i, source) in config.file_sources.iter().enumerate() {
        if encoding_rs::Encoding::for_label(source.encoding.as_bytes()).is_none() {
            return Err(AgentError::invalid_config(
                child(
                    &child(&child(at, "file_sources"), &format!("[{i}]")),
                    "encoding",
                ),
                format!(
                    "unknown encoding `{}`; use a WHATWG label such as `utf-8`, `gbk`, `big5`, `shift_jis` or `windows-1252`",
                    source.encoding
                ),
            ));
        }
    }
    let chunking = &config.chunking;
    if chunking.size == 0 || chunking.overlap >= chunking.size {
        return Err(AgentError::invalid_config(
            child(at, "chunking"),
            format!(
                "needs size ≥ 1 and overlap < size (got size {}, overlap {})",
                chunking.size, chunking.overlap
            ),
        ));
    }
    Ok(config)
}
