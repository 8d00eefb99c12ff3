use std::time::Duration;

/// How [`crate::ToolRegistry`] runs calls: per-call timeout and, for
/// [`crate::ToolRegistry::invoke_all`], how many calls run at once.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InvokeOptions {
    /// Longest a single tool execution may take; `None` waits forever.
    /// Approval by an [`crate::Approver`] is not counted. Default 30 s.
    /// A timeout needs the Tokio runtime's timer (`enable_time`, on by
    /// default with `#[tokio::main]`).
    pub timeout: Option<Duration>,
    /// Most calls in flight at once in `invoke_all` (at least 1). Default 8.
    pub max_concurrency: usize,
    /// Largest arguments string of a model's tool call, in bytes; a larger
    /// one is refused before it is parsed, with an error the model sees.
    /// Default [`DEFAULT_MAX_ARGUMENT_BYTES`] (1 MiB).
    pub max_argument_bytes: usize,
    /// Largest tool result given back to the model, in bytes; a longer one
    /// is cut at a character boundary and ends with a note saying how much
    /// was dropped. Default [`DEFAULT_MAX_RESULT_BYTES`] (1 MiB).
    pub max_result_bytes: usize,
}

/// Default [`InvokeOptions::max_argument_bytes`]: 1 MiB.
pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1024 * 1024;
/// Default [`InvokeOptions::max_result_bytes`]: 1 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1024 * 1024;

impl Default for InvokeOptions {
    fn default() -> Self {
        Self {
            timeout: Some(Duration::from_secs(30)),
            max_concurrency: 8,
            max_argument_bytes: DEFAULT_MAX_ARGUMENT_BYTES,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
        }
    }
}

impl InvokeOptions {
    /// The defaults: 30 s timeout, 8 calls at once, 1 MiB arguments and
    /// results.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Removes the per-call timeout.
    pub fn without_timeout(mut self) -> Self {
        self.timeout = None;
        self
    }

    /// Sets the concurrency limit (0 is read as 1).
    pub fn with_max_concurrency(mut self, max_concurrency: usize) -> Self {
        self.max_concurrency = max_concurrency.max(1);
        self
    }

    /// Sets the largest accepted tool-call arguments, in bytes.
    pub fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        self
    }

    /// Sets the largest tool result kept whole, in bytes (at least 64).
    pub fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes.max(64);
        self
    }
}

/// One call for [`crate::ToolRegistry::invoke_all`]: a tool name and its
/// arguments (a JSON object).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolInvocation {
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub args: serde_json::Value,
}

impl ToolInvocation {
    /// A call of `name` with `args`.
    pub fn new(name: impl Into<String>, args: serde_json::Value) -> Self {
        Self {
            name: name.into(),
            args,
        }
    }
}

impl<S: Into<String>> From<(S, serde_json::Value)> for ToolInvocation {
    fn from((name, args): (S, serde_json::Value)) -> Self {
        Self::new(name, args)
    }
}
