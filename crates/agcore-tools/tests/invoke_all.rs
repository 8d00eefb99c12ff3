//! Integration tests: concurrent invocation, ordering, timeouts, limits, cancellation.
#![cfg(test)]

use crate::tool_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agcore_tools::{
    FnTool, InvokeOptions, Tool, ToolContext, ToolError, ToolInvocation, ToolRegistry,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Barrier;
use tokio_util::sync::CancellationToken;

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    /// Index echoed back.
    index: u32,
    /// Milliseconds to sleep.
    ms: u64,
}

fn sleeper() -> Arc<dyn Tool> {
    Arc::new(FnTool::new(
        "sleep",
        "Sleeps, then returns its index.",
        |a: SleepArgs, _ctx: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(a.ms)).await;
            Ok::<_, ToolError>(json!(a.index))
        },
    ))
}

#[tokio::test]
async fn results_come_back_in_input_order() {
    let registry = ToolRegistry::new();
    registry.register(sleeper()).unwrap();
    registry.register(tool_support::echo("echo")).unwrap();
    // Earlier calls finish later.
    let mut calls: Vec<ToolInvocation> = (0..6u32)
        .map(|i| ToolInvocation::new("sleep", json!({"index": i, "ms": 60 - u64::from(i) * 10})))
        .collect();
    calls.insert(2, ToolInvocation::new("missing", json!({})));
    calls.insert(4, ToolInvocation::new("echo", json!({"value": "中"})));
    let results = registry.invoke_all(calls, &ToolContext::new()).await;
    assert_eq!(results.len(), 8);
    let summary: Vec<String> = results
        .iter()
        .map(|r| match r {
            Ok(v) => v.to_string(),
            Err(ToolError::NotFound(_)) => "not_found".into(),
            Err(e) => panic!("{e}"),
        })
        .collect();
    assert_eq!(
        summary,
        ["0", "1", "not_found", "2", "\"中\"", "3", "4", "5"]
    );
}

#[tokio::test]
async fn slow_calls_time_out_without_failing_the_others() {
    let registry = ToolRegistry::new();
    registry.register(sleeper()).unwrap();
    let options = InvokeOptions::new().with_timeout(Duration::from_millis(100));
    let results = registry
        .invoke_all_with(
            [
                ("sleep", json!({"index": 0, "ms": 0})),
                ("sleep", json!({"index": 1, "ms": 60_000})),
                ("sleep", json!({"index": 2, "ms": 1})),
            ],
            &ToolContext::new(),
            &options,
        )
        .await;
    assert_eq!(results[0].as_ref().unwrap(), &json!(0));
    match &results[1] {
        Err(e @ ToolError::Timeout { tool, timeout }) => {
            assert_eq!(tool, "sleep");
            assert_eq!(*timeout, Duration::from_millis(100));
            assert!(e.is_recoverable());
        }
        other => panic!("expected timeout, got {other:?}"),
    }
    assert_eq!(results[2].as_ref().unwrap(), &json!(2));
}

#[tokio::test]
async fn concurrency_limit_is_respected_and_reached() {
    const LIMIT: usize = 3;
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_seen = Arc::new(AtomicUsize::new(0));
    // Calls meet in groups of LIMIT: the barrier only opens once LIMIT calls
    // are running together, so the limit is reached; the counter shows it
    // is never exceeded.
    let barrier = Arc::new(Barrier::new(LIMIT));
    let tool = {
        let (in_flight, max_seen, barrier) = (in_flight.clone(), max_seen.clone(), barrier.clone());
        FnTool::new(
            "gate",
            "Waits for peers.",
            move |_a: SleepArgs, _ctx: ToolContext| {
                let (in_flight, max_seen, barrier) =
                    (in_flight.clone(), max_seen.clone(), barrier.clone());
                async move {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    max_seen.fetch_max(now, Ordering::SeqCst);
                    barrier.wait().await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    Ok::<_, ToolError>(json!(now))
                }
            },
        )
    };
    let registry = ToolRegistry::new();
    registry.register(Arc::new(tool)).unwrap();
    let calls =
        (0..4 * LIMIT as u32).map(|i| ToolInvocation::new("gate", json!({"index": i, "ms": 0})));
    let options = InvokeOptions::new()
        .with_max_concurrency(LIMIT)
        .with_timeout(Duration::from_secs(20));
    let results = registry
        .invoke_all_with(calls, &ToolContext::new(), &options)
        .await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(max_seen.load(Ordering::SeqCst), LIMIT);
    assert_eq!(in_flight.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn limit_of_one_serialises_calls() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_seen = Arc::new(AtomicUsize::new(0));
    let tool = {
        let (in_flight, max_seen) = (in_flight.clone(), max_seen.clone());
        FnTool::new(
            "count",
            "Counts.",
            move |_a: SleepArgs, _ctx: ToolContext| {
                let (in_flight, max_seen) = (in_flight.clone(), max_seen.clone());
                async move {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    max_seen.fetch_max(now, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    Ok::<_, ToolError>(json!(null))
                }
            },
        )
    };
    let registry = ToolRegistry::new().with_options(InvokeOptions::new().with_max_concurrency(1));
    registry.register(Arc::new(tool)).unwrap();
    let calls = (0..5u32).map(|i| ("count", json!({"index": i, "ms": 0})));
    let results = registry.invoke_all(calls, &ToolContext::new()).await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(max_seen.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn cancellation_stops_running_and_waiting_calls() {
    let registry = ToolRegistry::new();
    registry.register(sleeper()).unwrap();
    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let options = InvokeOptions::new()
        .with_max_concurrency(1)
        .without_timeout();
    let canceller = tokio::spawn({
        let token = token.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            token.cancel();
        }
    });
    let calls = (0..3u32).map(|i| ("sleep", json!({"index": i, "ms": 60_000})));
    let results = registry.invoke_all_with(calls, &ctx, &options).await;
    canceller.await.unwrap();
    for r in &results {
        assert!(
            matches!(r, Err(ToolError::Cancelled(n)) if n == "sleep"),
            "{r:?}"
        );
    }
    // An already-cancelled context refuses new calls.
    let err = registry
        .invoke("sleep", json!({"index": 9, "ms": 0}), &ctx)
        .await
        .unwrap_err();
    assert!(matches!(&err, ToolError::Cancelled(_)));
    assert!(!err.is_recoverable());
}
