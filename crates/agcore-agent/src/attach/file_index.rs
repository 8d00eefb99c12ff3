//! The persisted index of a `file` store: per file its `file_metadata`
//! (path, size, modification time, content hash) and chunks (text and, with
//! an embedding, vector); and the scan that finds what changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::chunking::ChunkingConfig;
use crate::AgentError;

/// `format` of an index file.
pub const INDEX_FORMAT: &str = "agcore-attach-file-index";

/// One chunk in the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedChunk {
    /// Unique id: `<file>#<n>`.
    pub id: String,
    /// Heading path or file path.
    pub title: String,
    /// The text; empty in an index file whose store keeps the texts in its
    /// on-disk item store (see [`crate::attach::stores::file`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Its embedding, when the store has a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f32>>,
}

/// `file_metadata` of one file and its chunks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedFile {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
    /// SHA-256 of the bytes, hex.
    pub hash: String,
    /// The chunks, in file order.
    pub chunks: Vec<IndexedChunk>,
}

/// The whole index file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileIndex {
    /// [`INDEX_FORMAT`].
    pub format: String,
    /// 1.
    pub version: u32,
    /// The chunking that produced the chunks (another one rebuilds all).
    pub chunking: ChunkingConfig,
    /// The embedding model of the vectors, `None` without one.
    pub model: Option<String>,
    /// By absolute path.
    pub files: BTreeMap<PathBuf, IndexedFile>,
}

impl FileIndex {
    /// An empty index.
    pub fn new(chunking: ChunkingConfig, model: Option<String>) -> Self {
        Self {
            format: INDEX_FORMAT.to_owned(),
            version: 1,
            chunking,
            model,
            files: BTreeMap::new(),
        }
    }

    /// Reads `path`; `None` when it does not exist, or holds another
    /// format, version, chunking or model (the caller rebuilds).
    ///
    /// # Errors
    /// [`AgentError::Io`] when it exists but cannot be read.
    pub fn read(
        path: &Path,
        chunking: &ChunkingConfig,
        model: Option<&str>,
    ) -> Result<Option<Self>, AgentError> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(AgentError::io(path, &err)),
        };
        let index: Option<Self> = serde_json::from_slice(&bytes).ok();
        Ok(index.filter(|i| {
            i.format == INDEX_FORMAT
                && i.version == 1
                && i.chunking == *chunking
                && i.model.as_deref() == model
        }))
    }

    /// Writes the index to `path` atomically (a temporary file, then rename).
    ///
    /// # Errors
    /// [`AgentError::Io`].
    pub fn write(&self, path: &Path) -> Result<(), AgentError> {
        let bytes = serde_json::to_vec(self).map_err(|e| AgentError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
            recoverable: false,
        })?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, bytes).map_err(|e| AgentError::io(&tmp, &e))?;
        std::fs::rename(&tmp, path).map_err(|e| AgentError::io(path, &e))
    }

    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.files.values().map(|f| f.chunks.len()).sum()
    }
}

/// A file found by a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Absolute (or as configured) path.
    pub path: PathBuf,
    /// Path relative to its source folder, `/`-separated (the chunk titles').
    pub rel: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
}

/// Files under `root` (itself when a file) whose extension is in
/// `file_types` (all when empty; `.md` or `md`), into `out`; hidden entries
/// (`.git`, `.cache`) are skipped, folders below the first level only when
/// `recursive`.
///
/// # Errors
/// [`AgentError::Io`] when `root` cannot be read.
pub fn scan(
    root: &Path,
    file_types: &[String],
    recursive: bool,
    out: &mut Vec<Found>,
) -> Result<(), AgentError> {
    let meta = std::fs::metadata(root).map_err(|e| AgentError::io(root, &e))?;
    if meta.is_file() {
        let rel = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(found(root, rel, &meta));
        return Ok(());
    }
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| AgentError::io(&dir, &e))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if meta.is_dir() {
                if recursive {
                    stack.push((entry.path(), rel));
                }
            } else if meta.is_file() && wanted(&name, file_types) {
                out.push(found(&entry.path(), rel, &meta));
            }
        }
    }
    Ok(())
}

fn found(path: &Path, rel: String, meta: &std::fs::Metadata) -> Found {
    Found {
        path: path.to_path_buf(),
        rel,
        size: meta.len(),
        mtime_ns: meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos()),
    }
}

fn wanted(name: &str, file_types: &[String]) -> bool {
    file_types.is_empty()
        || file_types.iter().any(|t| {
            let ext = t.trim_start_matches('.');
            name.rsplit_once('.')
                .is_some_and(|(_, e)| e.eq_ignore_ascii_case(ext))
        })
}

/// SHA-256 of `bytes`, hex.
pub fn content_hash(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_sha256_in_lowercase_hex() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn extensions_match_with_or_without_the_dot() {
        assert!(wanted("a.MD", &[".md".into()]));
        assert!(wanted("a.rs", &["rs".into(), "md".into()]));
        assert!(!wanted("a.rs", &[".md".into()]));
        assert!(wanted("a.rs", &[]));
    }
}
