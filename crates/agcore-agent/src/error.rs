use agcore_llm::LlmError;
use agcore_memory::MemoryError;
use agcore_tools::ToolError;
use thiserror::Error;

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

    /// Whether trying again may succeed: delegates to the wrapped error for
    /// LLM, tool and memory failures; a plan that failed to parse may parse
    /// when the model is asked again; the rest are not recoverable.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Llm(err) => err.is_recoverable(),
            Self::Tool(err) => err.is_recoverable(),
            Self::Memory(err) => err.is_recoverable(),
            Self::PlanParse(_) => true,
            Self::InvalidTransition { .. }
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
