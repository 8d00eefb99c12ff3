//! Where a store keeps its items: `memory_path` as a file, `auto`, a backend
//! URL, or nothing (in memory only).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agcore_memory::{InMemoryStore, JsonFileStore, MemoryStore};

use super::error::{AttachError, ConfigLocation};
use super::path::child;
use super::registry::{StoreContext, StoreSpec};

/// The `memory_path` word for "inside the session directory".
pub const AUTO: &str = "auto";

/// Opens the item store `memory_path` names: absent → an [`InMemoryStore`];
/// `auto` → a JSON file `<session dir>/<store>.json`; a value with `://` →
/// the context's [`BackendOpener`](super::BackendOpener); anything else → a
/// [`JsonFileStore`] at that path (relative to the context's base folder).
///
/// # Errors
/// [`AttachError::Invalid`] for `auto` without a session directory or a URL
/// without a backend opener; [`AttachError::Unwritable`] when the file's
/// folder cannot be created or the file cannot be written;
/// [`AttachError::Memory`] when the file or backend cannot be opened.
pub async fn open_items(
    memory_path: Option<&str>,
    spec: &StoreSpec,
    ctx: &StoreContext,
) -> Result<Arc<dyn MemoryStore>, AttachError> {
    let at = child(&child(&spec.location, "config"), "memory_path");
    let Some(raw) = memory_path else {
        return Ok(Arc::new(InMemoryStore::new()));
    };
    let memory = |source| AttachError::Memory {
        store: spec.name.clone(),
        source,
    };
    if raw.contains("://") {
        let Some(opener) = &ctx.backends else {
            return Err(AttachError::invalid(
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
/// [`AttachError::Invalid`] for `auto` without a session directory.
pub fn resolve_path(
    raw: &str,
    spec: &StoreSpec,
    ctx: &StoreContext,
    at: &ConfigLocation,
) -> Result<PathBuf, AttachError> {
    if raw == AUTO {
        let Some(dir) = &ctx.session_dir else {
            return Err(AttachError::invalid(
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
/// [`AttachError::Unwritable`] at `at`.
pub async fn ensure_writable(path: &Path, at: &ConfigLocation) -> Result<(), AttachError> {
    let unwritable = |err: std::io::Error| AttachError::Unwritable {
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
