use thiserror::Error;

/// Errors raised by the data types themselves (for example, tool-call arguments
/// that are not valid JSON for the expected shape).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TypesError {
    /// The `arguments` string of a tool call is not valid JSON, or does not
    /// match the type it was parsed into.
    #[error("tool call `{tool}` has invalid JSON arguments: {source}")]
    InvalidToolArguments {
        /// Name of the function the model called.
        tool: String,
        /// The underlying JSON error (line and column inside `arguments`).
        #[source]
        source: serde_json::Error,
    },
}

impl TypesError {
    /// Whether retrying (for example, asking the model again) may succeed.
    ///
    /// Bad tool arguments are recoverable: the model can be told the error and
    /// produce a corrected call.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::InvalidToolArguments { .. } => true,
        }
    }
}
