//! The program's error type and its exit codes.

use std::path::PathBuf;

/// Everything a command can fail with. Each variant maps to an exit code
/// ([`CliError::exit_code`]) and prints as one sentence, never a backtrace.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Configuration is missing or wrong (no endpoint, bad `agcore.toml`, bad flags
    /// combination). Exit code 2.
    #[error("{0}")]
    Config(String),
    /// The LLM endpoint could not be reached or refused the request. Exit code 2.
    #[error("{0}")]
    Endpoint(String),
    /// An input file is unreadable, truncated or has the wrong shape. Exit code 3.
    #[error("{path}: {message}")]
    Input {
        /// The offending file or folder.
        path: PathBuf,
        /// What is wrong with it, in one sentence.
        message: String,
    },
    /// A memory store operation failed. Exit code 1.
    #[error("memory: {0}")]
    Memory(#[from] agcore::memory::MemoryError),
    /// The agent runtime failed (exit code 1), or its configuration is bad:
    /// a `memory.stores` / `agents` section (exit code 2, the message names
    /// the file and the path in it).
    #[error("{}", agent_message(.0))]
    Agent(#[from] agcore::agent::AgentError),
    /// Reading or writing a file or the terminal failed. Exit code 1.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A value given on the command line is not valid data (an unknown memory
    /// type, an empty text). Exit code 3.
    #[error("{0}")]
    Invalid(String),
    /// Something asked for was not there (an id, a page). Exit code 4.
    #[error("{0}")]
    NotFound(String),
}

impl CliError {
    /// The process exit code: 1 runtime failure, 2 configuration or endpoint problem
    /// (clap also uses 2 for bad command lines), 3 bad input data, 4 not found.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Config(_) | Self::Endpoint(_) => 2,
            Self::Agent(err) if is_config(err) => 2,
            Self::Input { .. } | Self::Invalid(_) => 3,
            Self::NotFound(_) => 4,
            Self::Memory(_) | Self::Agent(_) | Self::Io(_) => 1,
        }
    }

    /// An [`CliError::Input`] for `path`.
    pub fn input(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Input {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Whether `err` is a mistake in a configuration file (exit code 2).
fn is_config(err: &agcore::agent::AgentError) -> bool {
    use agcore::agent::AgentError;
    matches!(
        err,
        AgentError::ConfigSyntax { .. }
            | AgentError::InvalidConfig { .. }
            | AgentError::DuplicateStore { .. }
            | AgentError::MissingVariable { .. }
            | AgentError::Unwritable { .. }
    )
}

/// A configuration mistake or a named store's failure as one line (it names
/// the file, path or store itself); anything else prefixed with `agent:`.
fn agent_message(err: &agcore::agent::AgentError) -> String {
    use agcore::agent::AgentError;
    match err {
        AgentError::Io { .. }
        | AgentError::ReadOnly { .. }
        | AgentError::Store { .. }
        | AgentError::StoreEmbedding { .. } => one_line(&err.to_string()),
        _ if is_config(err) => one_line(&err.to_string()),
        _ => format!("agent: {err}"),
    }
}

/// Collapses a multi-line message (a parser's, with a source excerpt) into one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
