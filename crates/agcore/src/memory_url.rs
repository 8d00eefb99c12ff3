//! [`MemoryUrl`]: `.memory(url)` on the agent builder.

use agcore_agent::ChatAgentBuilder;

/// Adds `.memory(url_or_path)` to [`ChatAgentBuilder`]: long-term memory in
/// the backend the URL names, opened by `build().await` through
/// [`crate::memory::open`] (`sqlite://memory.db`, a bare path,
/// `postgres://…`, `mysql://…`, `memory://`; see [`crate::memory`] for the
/// schemes and the features that enable them).
///
/// In [`crate::prelude`].
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore::agent::AgentError> {
/// use agcore::prelude::*;
///
/// let dir = tempfile::tempdir().map_err(|e| AgentError::Other(e.to_string()))?;
/// let agent = ChatAgent::builder()
///     .provider(MockProvider::new().push_text("Noted.").push_text(r#"{"facts": []}"#))
///     .memory(dir.path().join("memory.db").to_string_lossy())
///     .build()
///     .await?;
/// assert_eq!(agent.chat("I live in Lyon.").await?, "Noted.");
/// assert!(agent.bundle().tool_registry.contains("memory_recall"));
/// agent.finish().await?;
/// # Ok(())
/// # }
/// ```
pub trait MemoryUrl {
    /// Long-term memory in the backend at `url` (a URL or a SQLite file path),
    /// with the builder's `LongTermOptions` (default ones unless
    /// `.long_term(options)` is called).
    #[must_use]
    fn memory(self, url: impl Into<String>) -> Self;
}

impl MemoryUrl for ChatAgentBuilder {
    fn memory(self, url: impl Into<String>) -> Self {
        let url = url.into();
        self.open_storage(async move { crate::memory::open(&url).await })
    }
}
