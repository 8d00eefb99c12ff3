//! [`EvalError`]: what an evaluation run can fail with.

use std::path::PathBuf;

/// Every failure of an evaluation run, as one sentence.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The embedder or store cannot be used as given (unreachable server,
    /// unknown model folder, no right to create a database).
    #[error("{0}")]
    Config(String),
    /// An input file is unreadable, truncated or has the wrong shape.
    #[error("{path}: {message}")]
    Input {
        /// The offending file or folder.
        path: PathBuf,
        /// What is wrong with it, in one sentence.
        message: String,
    },
    /// A memory store operation failed.
    #[error("memory: {0}")]
    Memory(#[from] agcore::memory::MemoryError),
    /// Reading or writing a file failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

impl EvalError {
    /// An [`EvalError::Input`] for `path`.
    pub fn input(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Input {
            path: path.into(),
            message: message.into(),
        }
    }
}
