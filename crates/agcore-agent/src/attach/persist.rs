//! Where a store keeps its items: `memory_path` as a file, `auto`, a backend
//! URL, or nothing (in memory only).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agcore_memory::{InMemoryStore, JsonFileStore, MemoryStore};

use super::factory::{StoreContext, StoreSpec};
use super::path::child;
use crate::AgentError;
use crate::attach::ConfigLocation;

/// The `memory_path` word for "inside the session directory".
pub const AUTO: &str = "auto";

/// Opens the item store `memory_path` names: absent → an [`InMemoryStore`];
/// `auto` → a JSON file `<session dir>/<store>.json`; a value with `://` →
/// the context's [`BackendOpener`](super::BackendOpener); anything else → a
/// [`JsonFileStore`] at that path (relative to the context's base folder).
///
/// # Errors
/// [`AgentError::InvalidConfig`] for `auto` without a session directory or a URL
/// without a backend opener; [`AgentError::Unwritable`] when the file's
/// folder cannot be created or the file cannot be written;
/// [`AgentError::Store`] when the file or backend cannot be opened.
pub async fn open_items(
    memory_path: Option<&str>,
    spec: &StoreSpec,
    ctx: &StoreContext,
) -> Result<Arc<dyn MemoryStore>, AgentError> {
    let at = child(&child(&spec.location, "config"), "memory_path");
    let Some(raw) = memory_path else {
        return Ok(Arc::new(InMemoryStore::new()));
    };
    let memory = |source| AgentError::Store {
        store: spec.name.clone(),
        source,
    };
    if raw.contains("://") {
        let Some(opener) = &ctx.backends else {
            return Err(AgentError::invalid_config(
                at,
                "a backend URL needs a backend opener in the store context (the `agcore` crate supplies one); use a file path, `auto`, or omit the key",
            ));
        };
        return opener.open(raw).await.map_err(memory);
    }
    let path = resolve_path(raw, spec, ctx, &at)?;
    ensure_writable(&path, &at).await?;
    Ok(Arc::new(JsonFileStore::open(&path).await.map_err(memory)?))
}

/// `raw` as a file path: `auto` is `<session dir>/<store>.json`.
///
/// # Errors
/// [`AgentError::InvalidConfig`] for `auto` without a session directory.
pub fn resolve_path(
    raw: &str,
    spec: &StoreSpec,
    ctx: &StoreContext,
    at: &ConfigLocation,
) -> Result<PathBuf, AgentError> {
    if raw == AUTO {
        let Some(dir) = &ctx.session_dir else {
            return Err(AgentError::invalid_config(
                at.clone(),
                "`auto` needs a session directory in the store context; give a file path instead",
            ));
        };
        return Ok(dir.join(format!("{}.json", file_safe(&spec.name))));
    }
    Ok(ctx.resolve(Path::new(raw)))
}

/// `name` as a file name: letters and digits of any script, `-` and `_`
/// kept, every other character replaced by `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Creates `path`'s folder and checks the file can be opened for writing
/// (without changing it).
///
/// # Errors
/// [`AgentError::Unwritable`] at `at`.
pub async fn ensure_writable(path: &Path, at: &ConfigLocation) -> Result<(), AgentError> {
    let unwritable = |err: std::io::Error| AgentError::Unwritable {
        location: at.clone(),
        path: path.to_path_buf(),
        message: err.to_string(),
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(unwritable)?;
    }
    let existed = tokio::fs::try_exists(path).await.unwrap_or(false);
    tokio::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .await
        .map_err(unwritable)?;
    if !existed {
        // An empty file is not a valid store: leave no trace of the probe.
        tokio::fs::remove_file(path).await.map_err(unwritable)?;
    }
    Ok(())
}
