//! `LlmCycle` around each request: hooks and retries. Cancellation, usage and
//! compaction are in `cycle_cancellation.rs`, `cycle_usage.rs` and
//! `cycle_compaction.rs`.
#![cfg(test)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agcore_llm::types::{ChatMessage, ToolCall};
use agcore_llm::{
    CycleConfig, FnHook, HookContext, HookEvent, HookExecutor, HookResult, Jitter, LlmCycle,
    LlmError, MockProvider, RetryPolicy,
};

type Log = Arc<Mutex<Vec<String>>>;

/// Hooks on the four request events that log `event(attempt, error?)`.
fn logging_hooks(log: &Log, block_before: bool) -> Arc<HookExecutor> {
    let mut executor = HookExecutor::new();
    for event in [
        HookEvent::BeforeRequest,
        HookEvent::OnRetry,
        HookEvent::AfterResponse,
        HookEvent::OnError,
    ] {
        let log = Arc::clone(log);
        executor.register(
            event,
            Box::new(FnHook(move |ctx: &HookContext<'_>| {
                let error = ctx.error.map(|e| format!(" {e}")).unwrap_or_default();
                let response = ctx
                    .response
                    .map(|r| format!(" -> {}", r.text()))
                    .unwrap_or_default();
                log.lock()
                    .unwrap()
                    .push(format!("{:?}({}){error}{response}", ctx.event, ctx.attempt));
                assert!(
                    ctx.request.is_some(),
                    "request hooks always see the request"
                );
                if block_before && ctx.event == HookEvent::BeforeRequest {
                    HookResult::block("no budget")
                } else {
                    HookResult::allow()
                }
            })),
        );
    }
    Arc::new(executor)
}

fn fast_retry(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts)
        .with_base_delay(Duration::from_millis(1))
        .with_jitter(Jitter::None)
}

fn server_error() -> LlmError {
    LlmError::Server {
        status: 503,
        message: "overloaded".into(),
    }
}

#[tokio::test]
async fn retries_fire_on_retry_hooks() {
    let mock = Arc::new(
        MockProvider::new()
            .push_error(server_error())
            .push_error(LlmError::Connection("reset".into()))
            .push_text("finally"),
    );
    let log = Log::default();
    let mut cycle = LlmCycle::new_with_arc(
        mock.clone(),
        CycleConfig::new("m").with_retry(fast_retry(3)),
    )
    .with_hooks(logging_hooks(&log, false));
    let response = cycle.submit("hi").await.unwrap();
    assert_eq!(response.text(), "finally");
    assert_eq!(mock.request_count(), 3);
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "BeforeRequest(0)",
            "OnRetry(2) server error (HTTP 503): overloaded",
            "OnRetry(3) connection failed: reset",
            "AfterResponse(0) -> finally",
        ]
    );
    // One user message and one answer: failed attempts leave no trace.
    assert_eq!(cycle.messages().len(), 2);
}

#[tokio::test]
async fn gives_up_after_max_attempts_and_fires_on_error() {
    let mock = Arc::new(
        MockProvider::new()
            .push_error(server_error())
            .push_error(server_error())
            .push_text("unused"),
    );
    let log = Log::default();
    let mut cycle = LlmCycle::new_with_arc(
        mock.clone(),
        CycleConfig::new("m").with_retry(fast_retry(2)),
    )
    .with_hooks(logging_hooks(&log, false));
    let err = cycle.submit("hi").await.unwrap_err();
    assert!(matches!(err, LlmError::Server { status: 503, .. }));
    assert_eq!(mock.request_count(), 2);
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log.last().unwrap(),
        "OnError(0) server error (HTTP 503): overloaded"
    );
    assert_eq!(log.iter().filter(|l| l.starts_with("OnRetry")).count(), 1);
}

#[tokio::test]
async fn unrecoverable_errors_are_not_retried() {
    let mock = Arc::new(
        MockProvider::new()
            .push_error(LlmError::Authentication {
                message: "bad key".into(),
            })
            .push_text("unused"),
    );
    let mut cycle = LlmCycle::new_with_arc(
        mock.clone(),
        CycleConfig::new("m").with_retry(fast_retry(5)),
    );
    let err = cycle.submit("hi").await.unwrap_err();
    assert!(matches!(err, LlmError::Authentication { .. }));
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn before_request_block_stops_the_request() {
    let mock = Arc::new(MockProvider::new().push_text("unused"));
    let log = Log::default();
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m"))
        .with_hooks(logging_hooks(&log, true));
    let err = cycle.submit("hi").await.unwrap_err();
    assert!(matches!(err, LlmError::HookBlocked { ref reason } if reason == "no budget"));
    assert_eq!(mock.request_count(), 0);
    assert_eq!(*log.lock().unwrap(), vec!["BeforeRequest(0)"]);
}

#[tokio::test]
async fn after_response_block_is_an_error() {
    let mock = Arc::new(MockProvider::new().push_text("secret"));
    let hooks = HookExecutor::new().with_hook(
        HookEvent::AfterResponse,
        Box::new(FnHook(|ctx: &HookContext<'_>| {
            if ctx.response.unwrap().text().contains("secret") {
                HookResult::block("leak")
            } else {
                HookResult::allow()
            }
        })),
    );
    let mut cycle =
        LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m")).with_hooks(Arc::new(hooks));
    let err = cycle.submit("hi").await.unwrap_err();
    assert!(matches!(err, LlmError::HookBlocked { ref reason } if reason == "leak"));
    assert_eq!(cycle.messages().len(), 1, "the blocked answer is not kept");
}

#[tokio::test]
async fn hooks_fire_once_per_model_request_in_the_tool_loop() {
    struct Echo;
    #[async_trait::async_trait]
    impl agcore_llm::types::ToolExecutor for Echo {
        fn definitions(&self) -> Vec<agcore_llm::types::ToolDefinition> {
            Vec::new()
        }
        async fn execute(
            &self,
            call: &ToolCall,
        ) -> Result<ChatMessage, agcore_llm::types::ToolExecutionError> {
            Ok(ChatMessage::tool(&call.id, "echo"))
        }
    }
    let mock = Arc::new(
        MockProvider::new()
            .push_tool_call("echo", "{}")
            .push_tool_call("echo", "{}")
            .push_text("ok"),
    );
    let log = Log::default();
    let mut cycle = LlmCycle::new_with_arc(mock, CycleConfig::new("m"))
        .with_hooks(logging_hooks(&log, false))
        .with_tools(Arc::new(Echo));
    cycle.submit("go").await.unwrap();
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with("BeforeRequest"))
            .count(),
        3
    );
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with("AfterResponse"))
            .count(),
        3
    );
    assert_eq!(log.iter().filter(|l| l.starts_with("On")).count(), 0);
}
