use std::sync::Arc;

use agcore_types::ToolChoice;

use crate::RetryPolicy;
use crate::cost::PriceTable;

/// Settings of an [`LlmCycle`](crate::LlmCycle).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CycleConfig {
    /// Model name sent in every request.
    pub model: String,
    /// Sampling temperature (0–2); `None` leaves the server default.
    pub temperature: Option<f32>,
    /// Maximum completion tokens per response; `None` leaves the server default.
    pub max_tokens: Option<u32>,
    /// How many rounds of tool execution one `submit` may run (default 10);
    /// a model asking for tools once more fails with
    /// [`LlmError::LimitExceeded`](crate::LlmError::LimitExceeded).
    pub max_tool_turns: u32,
    /// `tool_choice` sent when tools are offered; `None` leaves the server
    /// default (`auto`).
    pub tool_choice: Option<ToolChoice>,
    /// After a round of tool calls, send `tool_choice: "auto"` instead of a
    /// `"required"` or named `tool_choice` (default `true`), so a forced tool
    /// call does not force another one on every round until `max_tool_turns`.
    /// The same default as the OpenAI Agents SDK's `reset_tool_choice`.
    pub reset_tool_choice: bool,
    /// Whether streamed requests ask for a final usage chunk
    /// (`stream_options.include_usage`, default `true`).
    pub stream_include_usage: bool,
    /// How failed requests are retried.
    pub retry: RetryPolicy,
    /// Prices for the cycle's [`CostTracker`](crate::CostTracker).
    pub prices: Arc<PriceTable>,
}

impl CycleConfig {
    /// A config for `model` with the defaults of [`CycleConfig::default`].
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the maximum completion tokens.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets how many tool rounds one `submit` may run.
    pub fn with_max_tool_turns(mut self, max_tool_turns: u32) -> Self {
        self.max_tool_turns = max_tool_turns;
        self
    }

    /// Sets the `tool_choice` sent with tools.
    pub fn with_tool_choice(mut self, tool_choice: ToolChoice) -> Self {
        self.tool_choice = Some(tool_choice);
        self
    }

    /// Sets whether a forcing `tool_choice` is reset to `"auto"` after a tool round.
    pub fn with_reset_tool_choice(mut self, reset: bool) -> Self {
        self.reset_tool_choice = reset;
        self
    }

    /// Sets whether streamed requests ask for usage.
    pub fn with_stream_include_usage(mut self, include: bool) -> Self {
        self.stream_include_usage = include;
        self
    }

    /// Sets the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets the price table.
    pub fn with_prices(mut self, prices: PriceTable) -> Self {
        self.prices = Arc::new(prices);
        self
    }
}

impl Default for CycleConfig {
    /// Model `gpt-4o-mini`, server-default sampling, 10 tool turns, a forcing
    /// `tool_choice` reset after a tool round, usage requested on streams, the default [`RetryPolicy`], no prices.
    fn default() -> Self {
        Self {
            model: "gpt-4o-mini".to_owned(),
            temperature: None,
            max_tokens: None,
            max_tool_turns: 10,
            tool_choice: None,
            reset_tool_choice: true,
            stream_include_usage: true,
            retry: RetryPolicy::default(),
            prices: Arc::new(PriceTable::new()),
        }
    }
}
