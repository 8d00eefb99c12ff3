//! `LlmCycle` around each request: hooks, retries, cancellation, usage, compaction.
#![cfg(test)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agcore_llm::compact::CompactConfig;
use agcore_llm::types::{ChatMessage, ToolCall, Usage};
use agcore_llm::{
    CycleConfig, FnHook, HookContext, HookEvent, HookExecutor, HookResult, Jitter, LlmCycle,
    LlmError, MockProvider, ModelPrice, PriceTable, RetryPolicy,
};
use tokio_util::sync::CancellationToken;

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

#[tokio::test]
async fn cancellation_stops_a_pending_request() {
    let mock = Arc::new(MockProvider::new().push_pending());
    let token = CancellationToken::new();
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m"))
        .with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
    });
    let err = tokio::time::timeout(Duration::from_secs(20), cycle.submit("hi"))
        .await
        .expect("cancellation did not stop the request")
        .unwrap_err();
    canceller.await.unwrap();
    assert!(matches!(err, LlmError::Cancelled));
    assert_eq!(mock.request_count(), 1);
    // A cancelled cycle refuses further work without calling the provider.
    assert!(matches!(
        cycle.submit("again").await,
        Err(LlmError::Cancelled)
    ));
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn cancellation_stops_retry_backoff() {
    let mock = Arc::new(MockProvider::new().push_error(LlmError::RateLimit {
        retry_after: Some(Duration::from_secs(3600)),
        message: "slow down".into(),
    }));
    let token = CancellationToken::new();
    let policy = RetryPolicy::new(3).with_max_retry_after(Duration::from_secs(3600));
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("m").with_retry(policy))
        .with_cancellation(token.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
    });
    let err = tokio::time::timeout(Duration::from_secs(20), cycle.submit("hi"))
        .await
        .expect("cancellation did not stop the backoff")
        .unwrap_err();
    assert!(matches!(err, LlmError::Cancelled));
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn usage_and_cost_accumulate_over_the_loop() {
    let mock = MockProvider::new().with_model("gpt-4o-mini-2024-07-18");
    let mut call = mock
        .push_text_with_usage("first", Usage::new(1_000, 200))
        .push_text_with_usage("second", Usage::new(3_000, 800));
    call = call.with_name("priced");
    let prices = PriceTable::new().with_price("gpt-4o-mini", ModelPrice::new(0.15, 0.60));
    let mut cycle = LlmCycle::new(
        Box::new(call),
        CycleConfig::new("gpt-4o-mini").with_prices(prices),
    );
    cycle.submit("one").await.unwrap();
    cycle.submit("two").await.unwrap();
    assert_eq!(cycle.usage().prompt_tokens, 4_000);
    assert_eq!(cycle.usage().completion_tokens, 1_000);
    assert_eq!(cycle.usage().total_tokens, 5_000);
    assert_eq!(cycle.cost().requests(), 2);
    let cost = cycle.cost().total_cost_usd().unwrap();
    let expected = (4_000.0 * 0.15 + 1_000.0 * 0.60) / 1_000_000.0;
    assert!((cost - expected).abs() < 1e-12, "{cost} != {expected}");
    assert!(cycle.cost().model_usage("gpt-4o-mini-2024-07-18").is_some());
}

#[tokio::test]
async fn compaction_runs_before_the_request() {
    // History: an old big tool result, then enough recent messages.
    let history = vec![
        ChatMessage::user("read it"),
        ChatMessage::assistant_tool_calls(vec![ToolCall::new("c1", "read_file", "{}")]),
        ChatMessage::tool("c1", "x".repeat(8_000)),
        ChatMessage::assistant("It is long."),
        ChatMessage::user("and then?"),
        ChatMessage::assistant("Nothing more."),
    ];
    let mock = Arc::new(MockProvider::new().push_text("ok"));
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("some-local-model"))
        .with_messages(history)
        .with_compact_config(CompactConfig::new(1_000, 200, 3));
    cycle.submit("summarise").await.unwrap();
    let sent = &mock.requests()[0];
    assert_eq!(sent.messages.len(), 7);
    assert_eq!(
        sent.messages[2].text(),
        "[tool result of `read_file` removed by microcompact: 8000 chars]"
    );
    // Microcompact was enough: no summary request was made.
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn summary_compaction_when_microcompact_is_not_enough() {
    let mut history = Vec::new();
    for i in 0..10 {
        history.push(ChatMessage::user(format!(
            "question {i} {}",
            "q".repeat(400)
        )));
        history.push(ChatMessage::assistant(format!(
            "answer {i} {}",
            "a".repeat(400)
        )));
    }
    let mock = Arc::new(
        MockProvider::new()
            .push_text_with_usage("They asked ten questions.", Usage::new(2_000, 10))
            .push_text_with_usage("ok", Usage::new(100, 1)),
    );
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), CycleConfig::new("local"))
        .with_system_prompt("sys")
        .with_messages(history)
        .with_compact_config(CompactConfig::new(1_000, 100, 2));
    cycle.submit("next").await.unwrap();
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].messages[1].text().contains("question 0"));
    let sent = &requests[1].messages;
    // system prompt, summary, the last two messages (last answer, new question).
    assert_eq!(sent[0].text(), "sys");
    assert!(
        sent[1]
            .text()
            .starts_with("[Summary of the earlier conversation]\nThey asked ten questions.")
    );
    assert_eq!(sent.len(), 1 + 1 + 2);
    assert!(sent[2].text().starts_with("answer 9"));
    assert_eq!(sent[3].text(), "next");
    assert_eq!(cycle.messages().len(), 4, "summary, answer 9, next, ok");
    assert_eq!(cycle.usage().prompt_tokens, 2_100);
}
