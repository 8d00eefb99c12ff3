//! Reading a folder of notes; the cutting into sections is
//! [`agcore::memory::knowledge::chunk`].

use std::path::{Path, PathBuf};

pub(crate) use agcore::memory::knowledge::chunk::{
    Section, file_prefix, resolve_link, sections, slug, summary,
};

/// File extensions ingested (case-insensitive).
pub(crate) const EXTENSIONS: [&str; 3] = ["md", "markdown", "txt"];

/// Every `.md` / `.markdown` / `.txt` file under `dir`, sorted; folders whose
/// name starts with `.` and `target` / `node_modules` are skipped.
///
/// # Errors
/// The first I/O error.
pub(crate) fn note_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    walk(dir, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                walk(&path, out)?;
            }
        } else if is_note(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether `path` has an ingested extension.
pub(crate) fn is_note(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}
