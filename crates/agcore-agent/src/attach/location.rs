//! [`ConfigLocation`]: where in a configuration file a value is, for the
//! configuration variants of [`crate::AgentError`].

use std::fmt;
use std::path::{Path, PathBuf};

/// Where a configuration value is: the file (when the text came from one)
/// and the path inside it, e.g. `memory.stores[1].config.index_path`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfigLocation {
    /// The file read, `None` for text given in code.
    pub file: Option<PathBuf>,
    /// Dotted path with list indices, `""` for the document itself.
    pub path: String,
}

impl ConfigLocation {
    /// A location in `file` (if any) at `path`.
    pub fn new(file: Option<&Path>, path: impl Into<String>) -> Self {
        Self {
            file: file.map(Path::to_path_buf),
            path: path.into(),
        }
    }
}

impl fmt::Display for ConfigLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self
            .file
            .as_deref()
            .map_or_else(|| "<configuration>".to_owned(), |p| p.display().to_string());
        if self.path.is_empty() {
            write!(f, "{file}")
        } else {
            write!(f, "{file}: `{}`", self.path)
        }
    }
}
