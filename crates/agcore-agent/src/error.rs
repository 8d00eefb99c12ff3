use agcore_llm::LlmError;
use agcore_memory::MemoryError;
use agcore_prompt::PromptError;
use agcore_tools::ToolError;
use thiserror::Error;

use crate::attach::ConfigLocation;

/// Everything that can go wrong running an agent.
///
/// Lower-layer errors convert with `?` through the `From` impls.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model call failed.
    #[error("LLM error: {0}")]
    Llm(#[from] LlmError),
    /// A tool failed.
    #[error("tool error: {0}")]
    Tool(#[from] ToolError),
    /// A memory store failed.
    #[error("memory error: {0}")]
    Memory(#[from] MemoryError),
    /// A prompt template (a built-in prompt's override, or a planning or
    /// review template) failed to render.
    #[error("prompt error: {0}")]
    Prompt(#[from] PromptError),
    /// The model's plan could not be parsed.
    #[error("plan parse error: {0}")]
    PlanParse(String),
    /// A step was moved between states the state machine does not allow.
    #[error("step {step}: illegal transition from {from} to {to}")]
    InvalidTransition {
        /// Index of the step in its plan.
        step: usize,
        /// The state it was in.
        from: &'static str,
        /// The state requested.
        to: &'static str,
    },
    /// A hook blocked the turn.
    #[error("blocked by hook: {0}")]
    HookBlocked(String),
    /// A configured limit (turns, tool turns, session TTL) was reached.
    #[error("limit exceeded: {0}")]
    LimitExceeded(String),
    /// The runtime is misconfigured (a required part is missing).
    #[error("configuration error: {0}")]
    Config(String),
    /// A context of a [`crate::ContextManager`] is missing, exists already, or
    /// cannot be destroyed.
    #[error("context error: {0}")]
    Context(String),
    /// The turn was cancelled through the session's cancellation token.
    #[error("the turn was cancelled")]
    Cancelled,
    /// A configuration file (memory attachments, seed 003) is not valid
    /// YAML or TOML.
    #[error("{location}: cannot parse {format}: {message}")]
    ConfigSyntax {
        /// The file.
        location: ConfigLocation,
        /// `YAML` or `TOML`.
        format: &'static str,
        /// The parser's message (with its line and column).
        message: String,
    },
    /// A configuration value is invalid: wrong type, unknown key, unknown
    /// store type, missing required key. `message` says what is valid.
    #[error("{location}: {message}")]
    InvalidConfig {
        /// Where.
        location: ConfigLocation,
        /// What is wrong and what is valid.
        message: String,
    },
    /// Two memory stores share a name.
    #[error("{second}: duplicate memory store name `{name}` (first declared at `{}`); store names must be unique", first.path)]
    DuplicateStore {
        /// The repeated name.
        name: String,
        /// The first declaration.
        first: ConfigLocation,
        /// The second one.
        second: ConfigLocation,
    },
    /// `${VAR}` names an environment variable that is not set. The error
    /// never holds the value of a variable that is set.
    #[error(
        "{location}: environment variable `{variable}` is not set (referenced as `${{{variable}}}`)"
    )]
    MissingVariable {
        /// Where the reference is.
        location: ConfigLocation,
        /// The variable's name.
        variable: String,
    },
    /// A path of a memory store cannot be created or written.
    #[error("{location}: cannot write `{}`: {message}", path.display())]
    Unwritable {
        /// The configuration key naming the path.
        location: ConfigLocation,
        /// The file or folder.
        path: std::path::PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// A file could not be read or written while running.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file or folder.
        path: std::path::PathBuf,
        /// The operating system's reason.
        message: String,
        /// Whether trying again may succeed (interrupted, timed out).
        recoverable: bool,
    },
    /// `update()` on a memory store that cannot be written (a `file` store).
    #[error("memory store `{store}` is read-only ({reason})")]
    ReadOnly {
        /// The store's name.
        store: String,
        /// Why.
        reason: String,
    },
    /// The backend of a named memory store (an attachment) failed.
    #[error("memory store `{store}`: {source}")]
    Store {
        /// The store's name.
        store: String,
        /// The backend's error.
        #[source]
        source: MemoryError,
    },
    /// The embedding model of a named memory store could not be created or
    /// failed.
    #[error("memory store `{store}`: embedding: {source}")]
    StoreEmbedding {
        /// The store's name.
        store: String,
        /// The model's error.
        #[source]
        source: LlmError,
    },
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

impl AgentError {
    /// Converts an [`LlmError`] from a turn, lifting the cases the runtime
    /// names itself: a blocking hook becomes [`AgentError::HookBlocked`], a
    /// tool-turn limit [`AgentError::LimitExceeded`], cancellation
    /// [`AgentError::Cancelled`]; the rest stay [`AgentError::Llm`].
    pub fn from_llm(err: LlmError) -> Self {
        match err {
            LlmError::HookBlocked { reason } => Self::HookBlocked(reason),
            LlmError::LimitExceeded(what) => Self::LimitExceeded(what),
            LlmError::Cancelled => Self::Cancelled,
            other => Self::Llm(other),
        }
    }

    /// An [`AgentError::InvalidConfig`] at `location`.
    pub fn invalid_config(location: ConfigLocation, message: impl Into<String>) -> Self {
        Self::InvalidConfig {
            location,
            message: message.into(),
        }
    }

    /// An [`AgentError::Io`] from an I/O error on `path`; recoverable when
    /// the operation was interrupted or timed out.
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
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

    /// Whether trying again may succeed: delegates to the wrapped error for
    /// LLM, tool, prompt and memory failures (also of named stores); a plan that
    /// failed to parse may parse when the model is asked again; interrupted
    /// I/O may succeed; configuration errors, read-only stores and the rest
    /// are not recoverable.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Llm(err) | Self::StoreEmbedding { source: err, .. } => err.is_recoverable(),
            Self::Tool(err) => err.is_recoverable(),
            Self::Prompt(err) => err.is_recoverable(),
            Self::Memory(err) | Self::Store { source: err, .. } => err.is_recoverable(),
            Self::PlanParse(_) => true,
            Self::Io { recoverable, .. } => *recoverable,
            Self::ConfigSyntax { .. }
            | Self::InvalidConfig { .. }
            | Self::DuplicateStore { .. }
            | Self::MissingVariable { .. }
            | Self::Unwritable { .. }
            | Self::ReadOnly { .. }
            | Self::InvalidTransition { .. }
            | Self::HookBlocked(_)
            | Self::LimitExceeded(_)
            | Self::Config(_)
            | Self::Context(_)
            | Self::Cancelled
            | Self::Other(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails_with_memory_error() -> Result<(), AgentError> {
        Err(MemoryError::NotFound("k".into()))?;
        Ok(())
    }

    #[test]
    fn question_mark_converts_and_recoverability_delegates() {
        let err = fails_with_memory_error().err();
        assert!(matches!(
            err,
            Some(AgentError::Memory(MemoryError::NotFound(_)))
        ));
        assert!(err.is_some_and(|e| e.is_recoverable()));
        assert!(!AgentError::from(MemoryError::Storage("disk".into())).is_recoverable());
        assert!(
            AgentError::from(LlmError::Timeout(std::time::Duration::from_secs(1))).is_recoverable()
        );
        assert!(!AgentError::from(LlmError::Cancelled).is_recoverable());
        assert!(!AgentError::Config("no provider".into()).is_recoverable());
    }
}
