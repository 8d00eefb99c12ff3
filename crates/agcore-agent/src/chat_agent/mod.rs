//! [`ChatAgent`]: an agent to call directly — `agent.chat("…").await?`.

mod builder;

use std::sync::Arc;

use agcore_memory::long_term::LongTermMemory;
use agcore_types::{ChatMessage, MessageContent};
use futures::StreamExt;
use tokio::sync::Mutex;

use crate::long_term::ExtractionReport;
use crate::{Agent, AgentError, AgentSession, AgentStream, RuntimeBundle};

pub use builder::{ChatAgentBuilder, DEFAULT_AGENT_NAME};

/// The user id of [`ChatAgent`]'s own conversation when
/// [`ChatAgentBuilder::user`] was not called.
pub const DEFAULT_USER_ID: &str = "default";

/// An agent with its runtime, ready to call: [`ChatAgent::chat`] for the
/// reply's text, [`ChatAgent::chat_stream`] for events as they happen,
/// [`ChatAgent::session`] for one conversation per end user.
///
/// `chat` and `chat_stream` continue one conversation (the agent's own
/// [`AgentSession`], for the user set by [`ChatAgentBuilder::user`]); calls
/// from several tasks take turns. Everything a session does applies: the
/// layered system prompt, hooks, the tool loop, limits, cost, long-term
/// memory (prefetch, `memory_save` / `memory_recall`, background
/// extraction). Call [`ChatAgent::finish`] before the program ends so the
/// background work of the last turns completes.
///
/// Built by [`ChatAgent::builder`]; for full control build a
/// [`RuntimeBundle`] with [`crate::AgentBuilder`] and use
/// [`ChatAgent::new`] or [`AgentSession`] directly.
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_agent::AgentError> {
/// use agcore_agent::ChatAgent;
/// use agcore_llm::MockProvider;
///
/// let agent = ChatAgent::builder()
///     .provider(MockProvider::new().push_text("Hello!").push_text("You said hi."))
///     .instructions("Answer briefly.")
///     .build()
///     .await?;
/// assert_eq!(agent.chat("Hi").await?, "Hello!");
/// assert_eq!(agent.chat("What did I say?").await?, "You said hi.");
/// assert_eq!(agent.history().await.len(), 4);
/// agent.finish().await?;
/// # Ok(())
/// # }
/// ```
pub struct ChatAgent {
    agent: Arc<dyn Agent>,
    bundle: Arc<RuntimeBundle>,
    user_id: String,
    conversation: Arc<Mutex<AgentSession>>,
    #[cfg(feature = "mcp")]
    mcp_clients: Vec<agcore_tools::McpClient>,
}

impl std::fmt::Debug for ChatAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatAgent")
            .field("agent", &self.agent.name())
            .field("user_id", &self.user_id)
            .field("tools", &self.bundle.tool_registry.len())
            .field("long_term", &self.bundle.long_term.is_some())
            .finish_non_exhaustive()
    }
}

impl ChatAgent {
    /// A builder with every default: see [`ChatAgentBuilder`].
    pub fn builder() -> ChatAgentBuilder {
        ChatAgentBuilder::new()
    }

    /// `agent` on `bundle`, its own conversation for [`DEFAULT_USER_ID`].
    pub fn new(agent: Arc<dyn Agent>, bundle: Arc<RuntimeBundle>) -> Self {
        let session = AgentSession::new(Arc::clone(&agent), Arc::clone(&bundle))
            .with_checked_user_id(DEFAULT_USER_ID.to_owned());
        Self::from_session(agent, bundle, DEFAULT_USER_ID.to_owned(), session)
    }

    /// `agent` on `bundle`, its own conversation for `user_id`.
    ///
    /// # Errors
    /// The errors of [`AgentSession::with_user_id`] for an invalid id.
    pub fn with_user(
        agent: Arc<dyn Agent>,
        bundle: Arc<RuntimeBundle>,
        user_id: impl Into<String>,
    ) -> Result<Self, AgentError> {
        let user_id = user_id.into();
        let session = AgentSession::new(Arc::clone(&agent), Arc::clone(&bundle))
            .with_user_id(user_id.clone())?;
        Ok(Self::from_session(agent, bundle, user_id, session))
    }

    fn from_session(
        agent: Arc<dyn Agent>,
        bundle: Arc<RuntimeBundle>,
        user_id: String,
        session: AgentSession,
    ) -> Self {
        Self {
            agent,
            bundle,
            user_id,
            conversation: Arc::new(Mutex::new(session)),
            #[cfg(feature = "mcp")]
            mcp_clients: Vec::new(),
        }
    }

    /// Runs one turn of the agent's own conversation and returns the text of
    /// the model's final reply.
    ///
    /// # Errors
    /// The errors of [`AgentSession::submit_turn`]; a failed turn leaves the
    /// conversation as it was.
    pub async fn chat(&self, input: impl Into<MessageContent>) -> Result<String, AgentError> {
        let mut session = self.conversation.lock().await;
        let reply = session.submit_turn(input).await?;
        Ok(reply.text())
    }

    /// The same turn as [`ChatAgent::chat`], as a stream of
    /// [`crate::AgentEvent`]s (text deltas, tool calls and results, the final
    /// response). The conversation is locked until the stream ends or is
    /// dropped; dropping it early abandons the turn.
    ///
    /// # Errors
    /// Yields one `Err` (the errors of [`AgentSession::submit_turn`]) and ends.
    pub fn chat_stream(&self, input: impl Into<MessageContent>) -> AgentStream<'_> {
        let input = input.into();
        let conversation = Arc::clone(&self.conversation);
        Box::pin(async_stream::try_stream! {
            let mut session = conversation.lock_owned().await;
            let mut events = session.submit_turn_stream(input);
            while let Some(event) = events.next().await {
                yield event?;
            }
        })
    }

    /// A new conversation of this agent for one end user (long-term memory
    /// is scoped to this agent and `user_id`). Sessions run independently of
    /// each other and of [`ChatAgent::chat`].
    ///
    /// # Errors
    /// The errors of [`AgentSession::with_user_id`] for an invalid id.
    pub fn session(&self, user_id: impl Into<String>) -> Result<AgentSession, AgentError> {
        AgentSession::new(Arc::clone(&self.agent), Arc::clone(&self.bundle)).with_user_id(user_id)
    }

    /// The messages of the agent's own conversation so far (user, assistant
    /// and tool messages; no system prompt).
    pub async fn history(&self) -> Vec<ChatMessage> {
        self.conversation.lock().await.history().to_vec()
    }

    /// Starts the agent's own conversation afresh: history and turn count are
    /// cleared (long-term memory is kept). Waits for the previous
    /// conversation's background work first, as [`ChatAgent::finish`].
    ///
    /// # Errors
    /// As [`ChatAgent::finish`]; the new conversation starts either way.
    pub async fn reset(&self) -> Result<Option<ExtractionReport>, AgentError> {
        let mut session = self.conversation.lock().await;
        let finished = session.finish().await;
        *session = AgentSession::new(Arc::clone(&self.agent), Arc::clone(&self.bundle))
            .with_checked_user_id(self.user_id.clone());
        finished
    }

    /// Ends the memory work of the agent's own conversation
    /// ([`AgentSession::finish`]: the running extraction, an extraction of
    /// the turns buffered since, the embedding queue) and returns the last
    /// extraction's report, if one ran. Call it before the program exits;
    /// the conversation can go on afterwards.
    ///
    /// # Errors
    /// The extraction's error (the dialogue buffer is kept for the next run).
    pub async fn finish(&self) -> Result<Option<ExtractionReport>, AgentError> {
        self.conversation.lock().await.finish().await
    }

    /// The agent (name, prompt layer, tool allow-list).
    pub fn agent(&self) -> &Arc<dyn Agent> {
        &self.agent
    }

    /// The runtime shared by every session of this agent.
    pub fn bundle(&self) -> &Arc<RuntimeBundle> {
        &self.bundle
    }

    /// The user id of the agent's own conversation.
    pub fn user_id(&self) -> &str {
        &self.user_id
    }

    /// The long-term memory, when configured (to list, search or edit
    /// memories outside a turn: `memory.scope(agent, user)?`).
    pub fn long_term_memory(&self) -> Option<&LongTermMemory> {
        self.bundle.long_term.as_ref().map(|rt| &rt.memory)
    }

    /// The MCP clients whose tools this agent uses (kept alive as long as the
    /// agent).
    #[cfg(feature = "mcp")]
    pub fn mcp_clients(&self) -> &[agcore_tools::McpClient] {
        &self.mcp_clients
    }
}

#[cfg(test)]
mod tests {
    use agcore_memory::long_term::MemoryScope;

    use super::DEFAULT_USER_ID;

    #[test]
    fn the_default_user_id_passes_the_scope_checks() {
        assert!(MemoryScope::check_user(DEFAULT_USER_ID).is_ok());
    }
}
