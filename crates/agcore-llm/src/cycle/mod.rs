//! [`LlmCycle`]: one conversation with a model, with the tool-call loop.

mod compaction;
mod config;
mod event;
mod request;
mod stream;
mod tools;

use std::sync::Arc;

use agcore_types::{ChatMessage, ChatResponse, MessageContent, ToolExecutor, Usage};
use tokio_util::sync::CancellationToken;

pub use config::CycleConfig;
pub use event::CycleEvent;
pub use stream::CycleStream;

use self::request::cancellable;
use self::tools::run_tool_calls;
use crate::compact::CompactConfig;
use crate::cost::CostTracker;
use crate::hooks::HookExecutor;
use crate::{LlmError, LlmProvider};

/// A conversation with one model: the system prompt and messages, the
/// provider, and the loop that runs the model's tool calls.
///
/// Each [`submit`](Self::submit) appends the user message, sends the
/// conversation (system prompt first), appends the answer, and — when a
/// [`ToolExecutor`] is set and the answer calls tools — runs the calls
/// (concurrently when one message holds several), appends their results in
/// call order and asks again, up to [`CycleConfig::max_tool_turns`] rounds.
/// Around each request it fires the hooks ([`HookEvent::BeforeRequest`],
/// [`HookEvent::OnRetry`], [`HookEvent::AfterResponse`], [`HookEvent::OnError`]),
/// retries recoverable failures with [`CycleConfig::retry`], records usage in
/// a [`CostTracker`], and compacts the conversation first when a
/// [`CompactConfig`] is set.
///
/// [`HookEvent::BeforeRequest`]: crate::HookEvent::BeforeRequest
/// [`HookEvent::OnRetry`]: crate::HookEvent::OnRetry
/// [`HookEvent::AfterResponse`]: crate::HookEvent::AfterResponse
/// [`HookEvent::OnError`]: crate::HookEvent::OnError
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use agcore_llm::{CycleConfig, LlmCycle, MockProvider};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let mock = Arc::new(MockProvider::new().push_text("Hello!"));
/// let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("gpt-4o-mini"))
///     .with_system_prompt("You are terse.");
/// let response = cycle.submit("Hi").await.unwrap();
/// assert_eq!(response.text(), "Hello!");
/// assert_eq!(cycle.messages().len(), 2); // user + assistant
/// assert_eq!(mock.requests()[0].messages[0].text(), "You are terse.");
/// # });
/// ```
pub struct LlmCycle {
    provider: Arc<dyn LlmProvider>,
    config: CycleConfig,
    system_prompt: Option<String>,
    messages: Vec<ChatMessage>,
    hooks: Option<Arc<HookExecutor>>,
    tools: Option<Arc<dyn ToolExecutor>>,
    compact: Option<CompactConfig>,
    /// Provider and model of summary compaction (`None`: the cycle's own).
    summary_model: Option<(Arc<dyn LlmProvider>, String)>,
    cancel: CancellationToken,
    cost: CostTracker,
}

impl std::fmt::Debug for LlmCycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmCycle")
            .field("provider", &self.provider.name())
            .field("config", &self.config)
            .field("messages", &self.messages.len())
            .field("tools", &self.tools.is_some())
            .field("compact", &self.compact)
            .finish_non_exhaustive()
    }
}

impl LlmCycle {
    /// A cycle over `provider` with `config`, no system prompt, no messages.
    pub fn new(provider: Box<dyn LlmProvider>, config: CycleConfig) -> Self {
        Self::new_with_arc(Arc::from(provider), config)
    }

    /// A cycle over a shared provider.
    pub fn new_with_arc(provider: Arc<dyn LlmProvider>, config: CycleConfig) -> Self {
        let cost = CostTracker::with_shared_prices(Arc::clone(&config.prices));
        Self {
            provider,
            config,
            system_prompt: None,
            messages: Vec::new(),
            hooks: None,
            tools: None,
            compact: None,
            summary_model: None,
            cancel: CancellationToken::new(),
            cost,
        }
    }

    /// Sets the system prompt, sent as the first message of every request
    /// (it is not part of [`Self::messages`] and never compacted).
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Replaces the conversation (e.g. history loaded from memory).
    pub fn with_messages(mut self, messages: Vec<ChatMessage>) -> Self {
        self.messages = messages;
        self
    }

    /// Sets the hooks fired around requests.
    pub fn with_hooks(mut self, hooks: Arc<HookExecutor>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Sets the tools offered to the model and run by the tool-call loop.
    pub fn with_tools(mut self, tools: Arc<dyn ToolExecutor>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Compacts the conversation before a request when it exceeds the config's
    /// threshold (counted with the cycle's model unless the config names one).
    pub fn with_compact_config(mut self, config: CompactConfig) -> Self {
        self.compact = Some(config);
        self
    }

    /// Sends summary-compaction requests to `provider` with `model` (e.g. a
    /// cheaper or local model for memory work) instead of the cycle's own
    /// provider and model. Their usage is counted in [`Self::cost`].
    pub fn with_summary_model(
        mut self,
        provider: Arc<dyn LlmProvider>,
        model: impl Into<String>,
    ) -> Self {
        self.summary_model = Some((provider, model.into()));
        self
    }

    /// Stops the current and later submits with [`LlmError::Cancelled`] once
    /// `token` is cancelled.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// The conversation (without the system prompt), oldest first.
    pub fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// Takes the conversation out, leaving it empty.
    pub fn take_messages(&mut self) -> Vec<ChatMessage> {
        std::mem::take(&mut self.messages)
    }

    /// The system prompt.
    pub fn system_prompt(&self) -> Option<&str> {
        self.system_prompt.as_deref()
    }

    /// The config.
    pub fn config(&self) -> &CycleConfig {
        &self.config
    }

    /// Usage and cost of every response this cycle received (summaries included).
    pub fn cost(&self) -> &CostTracker {
        &self.cost
    }

    /// Total token usage of every response this cycle received.
    pub fn usage(&self) -> &Usage {
        self.cost.total_usage()
    }

    /// Sends `user_input` and returns the model's final answer, running tool
    /// calls in between when tools are set.
    ///
    /// On failure the conversation keeps the user message and every complete
    /// exchange before the failure; it never holds a tool call without its result.
    ///
    /// # Errors
    /// The provider's [`LlmError`] after retries; [`LlmError::HookBlocked`]
    /// when a hook blocks; [`LlmError::LimitExceeded`] when the model asks for
    /// tools after `max_tool_turns` rounds (that last answer is not kept);
    /// [`LlmError::Tool`] when a tool fails fatally (after all calls of that
    /// message were answered); [`LlmError::Cancelled`].
    pub async fn submit(
        &mut self,
        user_input: impl Into<MessageContent>,
    ) -> Result<ChatResponse, LlmError> {
        let tools = self.tools.clone();
        let span = self.span();
        // Boxed: the loop's state machine is large, and moving it costs more than one allocation.
        let run = Box::pin(self.run(user_input.into(), tools.as_deref()));
        tracing::Instrument::instrument(run, span).await
    }

    /// [`Self::submit`] with `tools` for this call instead of the configured ones.
    ///
    /// # Errors
    /// As [`Self::submit`].
    pub async fn submit_with_tools(
        &mut self,
        user_input: impl Into<MessageContent>,
        tools: &dyn ToolExecutor,
    ) -> Result<ChatResponse, LlmError> {
        let span = self.span();
        tracing::Instrument::instrument(self.run(user_input.into(), Some(tools)), span).await
    }

    /// The `tracing` span of one submit.
    fn span(&self) -> tracing::Span {
        tracing::info_span!(
            "llm.cycle.submit",
            provider = self.provider.name(),
            model = %self.config.model,
            history = self.messages.len(),
        )
    }

    async fn run(
        &mut self,
        input: MessageContent,
        tools: Option<&dyn ToolExecutor>,
    ) -> Result<ChatResponse, LlmError> {
        if self.cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        self.messages.push(ChatMessage::user(input));
        let mut tool_turns = 0u32;
        loop {
            self.maybe_compact().await?;
            let request = self.build_request(tools, false, tool_turns > 0);
            let provider = Arc::clone(&self.provider);
            let caller = self.caller();
            let response = caller
                .send(&request, |r| {
                    let provider = Arc::clone(&provider);
                    async move { provider.chat(r).await }
                })
                .await?;
            caller.after_response(&request, &response).await?;
            self.record(&response);
            let Some(calls) = self.accept(&response, tools, &mut tool_turns)? else {
                return Ok(response);
            };
            if let Some(tools) = tools {
                let round = cancellable(&self.cancel, run_tool_calls(tools, &calls)).await?;
                self.messages
                    .extend(round.results.into_iter().map(|(_, message, _)| message));
                if let Some(fatal) = round.fatal {
                    return Err(fatal);
                }
            }
        }
    }

    /// Appends the assistant message; returns the tool calls to run, if any.
    fn accept(
        &mut self,
        response: &ChatResponse,
        tools: Option<&dyn ToolExecutor>,
        tool_turns: &mut u32,
    ) -> Result<Option<Vec<agcore_types::ToolCall>>, LlmError> {
        let message = response
            .message()
            .cloned()
            .ok_or_else(|| LlmError::Decode {
                message: "the response has no choices".to_owned(),
            })?;
        if tools.is_none() || message.tool_calls.is_empty() {
            self.messages.push(message);
            return Ok(None);
        }
        if *tool_turns >= self.config.max_tool_turns {
            return Err(LlmError::LimitExceeded(format!(
                "the model asked for tools after {} tool turns (max_tool_turns = {})",
                tool_turns, self.config.max_tool_turns
            )));
        }
        *tool_turns += 1;
        let calls = message.tool_calls.clone();
        self.messages.push(message);
        Ok(Some(calls))
    }

    fn record(&mut self, response: &ChatResponse) {
        if let Some(usage) = &response.usage {
            let model = if response.model.is_empty() {
                self.config.model.as_str()
            } else {
                response.model.as_str()
            };
            self.cost.record(model, usage);
        }
    }
}
