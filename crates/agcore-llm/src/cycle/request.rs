use std::future::Future;
use std::sync::Mutex;

use agcore_types::{
    ChatMessage, ChatRequest, ChatResponse, StreamOptions, ToolChoice, ToolExecutor,
};
use tokio_util::sync::CancellationToken;

use super::LlmCycle;
use crate::hooks::{HookContext, HookEvent, HookExecutor};
use crate::{LlmError, RetryPolicy, retry};

/// Sends requests for a cycle: hooks, retries (through [`retry`]) and cancellation.
pub(crate) struct Caller<'a> {
    pub hooks: Option<&'a HookExecutor>,
    pub policy: &'a RetryPolicy,
    pub cancel: &'a CancellationToken,
}

impl Caller<'_> {
    /// Fires `event` with `ctx`; a block becomes [`LlmError::HookBlocked`].
    pub async fn fire(&self, ctx: HookContext<'_>) -> Result<(), LlmError> {
        match self.hooks {
            Some(hooks) => hooks.execute(ctx.event, &ctx).await.into_result(),
            None => Ok(()),
        }
    }

    /// Runs `send` for `request` with BeforeRequest, OnRetry and OnError
    /// hooks, retrying recoverable failures, stopping on cancellation.
    pub async fn send<T, F, Fut>(&self, request: &ChatRequest, send: F) -> Result<T, LlmError>
    where
        F: Fn(ChatRequest) -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        self.fire(HookContext::new(HookEvent::BeforeRequest).with_request(request))
            .await?;
        let last_error: Mutex<Option<LlmError>> = Mutex::new(None);
        let attempts = Box::pin(retry(
            self.policy,
            |attempt| {
                let last_error = &last_error;
                let send = &send;
                async move {
                    if attempt > 1 {
                        let previous = take(last_error);
                        let mut ctx = HookContext::new(HookEvent::OnRetry)
                            .with_request(request)
                            .with_attempt(attempt);
                        if let Some(error) = &previous {
                            ctx = ctx.with_error(error);
                        }
                        self.fire(ctx).await?;
                    }
                    send(request.clone()).await
                }
            },
            |_, error, _| {
                *last_error
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(clone_error(error));
            },
        ));
        let result = cancellable(self.cancel, attempts).await.and_then(|r| r);
        if let Err(error) = &result
            && !matches!(error, LlmError::HookBlocked { .. } | LlmError::Cancelled)
        {
            // The failure is returned either way: a block at OnError changes nothing.
            let _ = self
                .fire(
                    HookContext::new(HookEvent::OnError)
                        .with_request(request)
                        .with_error(error),
                )
                .await;
        }
        result
    }

    /// Fires AfterResponse for `response` to `request`.
    pub async fn after_response(
        &self,
        request: &ChatRequest,
        response: &ChatResponse,
    ) -> Result<(), LlmError> {
        self.fire(
            HookContext::new(HookEvent::AfterResponse)
                .with_request(request)
                .with_response(response),
        )
        .await
    }
}

fn take(slot: &Mutex<Option<LlmError>>) -> Option<LlmError> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

/// Awaits `future` unless `cancel` fires first ([`LlmError::Cancelled`]).
pub(crate) async fn cancellable<F: Future>(
    cancel: &CancellationToken,
    future: F,
) -> Result<F::Output, LlmError> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(LlmError::Cancelled),
        output = future => Ok(output),
    }
}

/// A copy of `error` for the OnRetry hook of the next attempt.
fn clone_error(error: &LlmError) -> LlmError {
    match error {
        LlmError::Authentication { message } => LlmError::Authentication {
            message: message.clone(),
        },
        LlmError::RateLimit {
            retry_after,
            message,
        } => LlmError::RateLimit {
            retry_after: *retry_after,
            message: message.clone(),
        },
        LlmError::Timeout(d) => LlmError::Timeout(*d),
        LlmError::ContextLengthExceeded { message } => LlmError::ContextLengthExceeded {
            message: message.clone(),
        },
        LlmError::InvalidRequest { message } => LlmError::InvalidRequest {
            message: message.clone(),
        },
        LlmError::Server { status, message } => LlmError::Server {
            status: *status,
            message: message.clone(),
        },
        LlmError::Http { status, body } => LlmError::Http {
            status: *status,
            body: body.clone(),
        },
        LlmError::Connection(m) => LlmError::Connection(m.clone()),
        LlmError::Decode { message } => LlmError::Decode {
            message: message.clone(),
        },
        LlmError::Stream(m) => LlmError::Stream(m.clone()),
        LlmError::Tool { tool, message } => LlmError::Tool {
            tool: tool.clone(),
            message: message.clone(),
        },
        LlmError::HookBlocked { reason } => LlmError::HookBlocked {
            reason: reason.clone(),
        },
        LlmError::LimitExceeded(m) => LlmError::LimitExceeded(m.clone()),
        LlmError::Config(m) => LlmError::Config(m.clone()),
        LlmError::Cancelled => LlmError::Cancelled,
    }
}

impl LlmCycle {
    /// The [`Caller`] of this cycle's hooks, retry policy and cancellation.
    pub(super) fn caller(&self) -> Caller<'_> {
        Caller {
            hooks: self.hooks.as_deref(),
            policy: &self.config.retry,
            cancel: &self.cancel,
        }
    }

    /// The request for the current conversation.
    pub(super) fn build_request(
        &self,
        tools: Option<&dyn ToolExecutor>,
        stream: bool,
        after_tools: bool,
    ) -> ChatRequest {
        let mut messages = Vec::with_capacity(self.messages.len() + 1);
        if let Some(prompt) = &self.system_prompt {
            messages.push(ChatMessage::system(prompt.clone()));
        }
        messages.extend(self.messages.iter().cloned());
        let mut request = ChatRequest::new(self.config.model.clone(), messages);
        request.temperature = self.config.temperature;
        request.max_tokens = self.config.max_tokens;
        if let Some(tools) = tools {
            let definitions = tools.definitions();
            if !definitions.is_empty() {
                request.tools = definitions;
                request.tool_choice = match &self.config.tool_choice {
                    Some(ToolChoice::Mode(mode))
                        if after_tools && self.config.reset_tool_choice && mode == "required" =>
                    {
                        Some(ToolChoice::auto())
                    }
                    Some(ToolChoice::Named(_)) if after_tools && self.config.reset_tool_choice => {
                        Some(ToolChoice::auto())
                    }
                    other => other.clone(),
                };
            }
        }
        if stream {
            request.stream = Some(true);
            if self.config.stream_include_usage {
                request.stream_options = Some(StreamOptions {
                    include_usage: Some(true),
                    ..StreamOptions::default()
                });
            }
        }
        request
    }
}
