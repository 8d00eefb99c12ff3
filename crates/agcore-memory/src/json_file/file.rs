//! The JSON file format of [`JsonFileStore`](super::JsonFileStore) and its
//! atomic replacement (write a temporary file beside it, sync, rename).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::{MemoryError, MemoryItem};

/// The `format` field of every file this store writes.
pub(crate) const FORMAT: &str = "agcore-memory";
/// The file format version this code reads and writes.
pub(crate) const VERSION: u32 = 1;

/// The whole file: `{"format": "agcore-memory", "version": 1, "items": [...]}`.
#[derive(Serialize, Deserialize)]
struct Document {
    format: String,
    version: u32,
    items: Vec<MemoryItem>,
}

fn storage(path: &Path, what: &str, err: impl std::fmt::Display) -> MemoryError {
    MemoryError::Storage(format!("{what} {}: {err}", path.display()))
}

/// Reads the items of the file at `path`; a missing file is an empty store.
///
/// # Errors
/// [`MemoryError::Storage`] when the file cannot be read, is not a store
/// file, or is of a newer version (the file is left untouched).
pub(crate) fn load(path: &Path) -> Result<Vec<MemoryItem>, MemoryError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(storage(path, "cannot read", err)),
    };
    let doc: Document = serde_json::from_slice(&bytes)
        .map_err(|err| storage(path, "not an agcore JSON memory file", err))?;
    if doc.format != FORMAT {
        return Err(storage(
            path,
            "not an agcore JSON memory file",
            format_args!("format is `{}`, expected `{FORMAT}`", doc.format),
        ));
    }
    if doc.version > VERSION {
        return Err(storage(
            path,
            "cannot open",
            format_args!(
                "file version {} is newer than the version {VERSION} this library supports",
                doc.version
            ),
        ));
    }
    for item in &doc.items {
        item.validate()
            .map_err(|err| storage(path, "invalid item in", err))?;
    }
    Ok(doc.items)
}

/// Creates the folder of `path` when missing.
///
/// # Errors
/// [`MemoryError::Storage`] when it cannot be created.
pub(crate) fn create_folder(path: &Path) -> Result<(), MemoryError> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|err| storage(dir, "cannot create", err)),
        None => Ok(()),
    }
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(
        || "memory.json".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{seq}.tmp", std::process::id()))
}

/// Replaces the file at `path` by `items`: written to a temporary file in
/// the same folder, synced, then renamed over the old file (and the folder
/// synced), so a crash leaves either the old or the new file, never a torn one.
///
/// # Errors
/// [`MemoryError::Storage`] when any step fails; the old file is then intact.
pub(crate) fn replace(path: &Path, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
    let doc = Document {
        format: FORMAT.to_owned(),
        version: VERSION,
        items,
    };
    let bytes = serde_json::to_vec(&doc).map_err(|err| storage(path, "cannot encode", err))?;
    let temp = temp_path(path);
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Makes the rename durable; not every platform can open a folder.
            if let Ok(dir) = std::fs::File::open(dir) {
                dir.sync_all()?;
            }
        }
        Ok(())
    })();
    if let Err(err) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(storage(path, "cannot write", err));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_foreign_or_newer_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        assert!(load(&path).unwrap().is_empty());
        let item = MemoryItem::new("a", "用户喜欢绿茶").with_metadata(serde_json::json!({"k": 1}));
        replace(&path, vec![item.clone()]).unwrap();
        assert_eq!(load(&path).unwrap(), vec![item]);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );

        std::fs::write(&path, br#"{"format":"other","version":1,"items":[]}"#).unwrap();
        assert!(
            load(&path)
                .unwrap_err()
                .to_string()
                .contains("expected `agcore-memory`")
        );
        std::fs::write(
            &path,
            br#"{"format":"agcore-memory","version":9,"items":[]}"#,
        )
        .unwrap();
        assert!(load(&path).unwrap_err().to_string().contains("newer"));
        std::fs::write(&path, b"not json").unwrap();
        assert!(load(&path).is_err());
    }
}
