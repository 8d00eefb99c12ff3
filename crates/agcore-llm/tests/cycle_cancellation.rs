//! `LlmCycle` cancellation: a pending request and a retry backoff stop when
//! the token is cancelled.
#![cfg(test)]

use std::sync::Arc;
use std::time::Duration;

use agcore_llm::{CycleConfig, LlmCycle, LlmError, MockProvider, RetryPolicy};
use tokio_util::sync::CancellationToken;

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
