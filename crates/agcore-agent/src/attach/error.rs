//! [`AttachError`]: what can go wrong declaring, opening or using memory
//! attachments, and where in the configuration it happened.

use std::fmt;
use std::path::{Path, PathBuf};

use agcore_llm::LlmError;
use agcore_memory::MemoryError;
use thiserror::Error;

use crate::AgentError;

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

/// Every failure of [`crate::attach`]. Configuration errors name the file,
/// the path in it and what would be valid; no error ever holds the value of
/// an interpolated `${VAR}`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AttachError {
    /// The text is not valid YAML or TOML.
    #[error("{location}: cannot parse {format}: {message}")]
    Syntax {
        /// The file.
        location: ConfigLocation,
        /// `YAML` or `TOML`.
        format: &'static str,
        /// The parser's message (with its line and column).
        message: String,
    },
    /// A value is invalid: wrong type, unknown key, unknown store type,
    /// missing required key. `message` says what is valid.
    #[error("{location}: {message}")]
    Invalid {
        /// Where.
        location: ConfigLocation,
        /// What is wrong and what is valid.
        message: String,
    },
    /// Two stores share a name.
    #[error("{second}: duplicate memory store name `{name}` (first declared at `{}`); store names must be unique", first.path)]
    DuplicateStore {
        /// The repeated name.
        name: String,
        /// The first declaration.
        first: ConfigLocation,
        /// The second one.
        second: ConfigLocation,
    },
    /// `${VAR}` names an environment variable that is not set.
    #[error(
        "{location}: environment variable `{variable}` is not set (referenced as `${{{variable}}}`)"
    )]
    MissingVariable {
        /// Where the reference is.
        location: ConfigLocation,
        /// The variable's name.
        variable: String,
    },
    /// A path of a store cannot be created or written.
    #[error("{location}: cannot write `{}`: {message}", path.display())]
    Unwritable {
        /// The configuration key naming the path.
        location: ConfigLocation,
        /// The file or folder.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// A file could not be read or written while running.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
        /// Whether trying again may succeed (interrupted, timed out).
        recoverable: bool,
    },
    /// `update()` on a store that cannot be written (a `file` store).
    #[error("memory store `{store}` is read-only ({reason})")]
    ReadOnly {
        /// The store's name.
        store: String,
        /// Why.
        reason: String,
    },
    /// The store's backend failed.
    #[error("memory store `{store}`: {source}")]
    Memory {
        /// The store's name.
        store: String,
        /// The backend's error.
        #[source]
        source: MemoryError,
    },
    /// The embedding model could not be created or failed.
    #[error("memory store `{store}`: embedding: {source}")]
    Embedding {
        /// The store's name.
        store: String,
        /// The model's error.
        #[source]
        source: LlmError,
    },
}

impl AttachError {
    /// An [`AttachError::Invalid`] at `location`.
    pub fn invalid(location: ConfigLocation, message: impl Into<String>) -> Self {
        Self::Invalid {
            location,
            message: message.into(),
        }
    }

    /// An [`AttachError::Io`] from an I/O error on `path`.
    pub fn io(path: &Path, err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        Self::Io {
            path: path.to_path_buf(),
            message: err.to_string(),
            recoverable: matches!(
                err.kind(),
                ErrorKind::Interrupted | ErrorKind::TimedOut | ErrorKind::WouldBlock
            ),
        }
    }

    /// Whether trying again may succeed: backend and embedding errors
    /// delegate to the wrapped error, interrupted I/O is; configuration
    /// errors and read-only stores are not.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Memory { source, .. } => source.is_recoverable(),
            Self::Embedding { source, .. } => source.is_recoverable(),
            Self::Io { recoverable, .. } => *recoverable,
            Self::Syntax { .. }
            | Self::Invalid { .. }
            | Self::DuplicateStore { .. }
            | Self::MissingVariable { .. }
            | Self::Unwritable { .. }
            | Self::ReadOnly { .. } => false,
        }
    }
}

impl From<AttachError> for AgentError {
    /// Backend errors stay [`AgentError::Memory`]; embedding errors become
    /// [`AgentError::Llm`]; everything else is [`AgentError::Config`] with
    /// the full message (file, path, what is valid).
    fn from(err: AttachError) -> Self {
        match err {
            AttachError::Memory { source, .. } => AgentError::Memory(source),
            AttachError::Embedding { source, .. } => AgentError::Llm(source),
            other => AgentError::Config(other.to_string()),
        }
    }
}
