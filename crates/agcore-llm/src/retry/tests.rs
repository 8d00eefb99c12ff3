//! Backoff, jitter, `Retry-After` and the retry loop.

use super::*;

fn server_error() -> LlmError {
    LlmError::Server {
        status: 503,
        message: "busy".into(),
    }
}

#[test]
fn backoff_doubles_and_caps() {
    let policy = RetryPolicy::new(10)
        .with_base_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(1));
    let delays: Vec<u128> = (1..=6).map(|n| policy.backoff(n).as_millis()).collect();
    assert_eq!(delays, vec![100, 200, 400, 800, 1000, 1000]);
    assert_eq!(policy.backoff(u32::MAX), Duration::from_secs(1));
}

#[test]
fn jitter_stays_in_its_interval() {
    let full = RetryPolicy::new(5)
        .with_base_delay(Duration::from_millis(400))
        .with_jitter(Jitter::Full);
    let equal = full.clone().with_jitter(Jitter::Equal);
    let mut distinct = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let d = full.delay_for(2, &server_error());
        assert!(d <= Duration::from_millis(800));
        distinct.insert(d);
        let d = equal.delay_for(2, &server_error());
        assert!(d >= Duration::from_millis(400) && d <= Duration::from_millis(800));
    }
    assert!(distinct.len() > 10, "full jitter should vary");
}

#[test]
fn retry_after_is_honoured_and_capped() {
    let policy = RetryPolicy::new(3).with_max_retry_after(Duration::from_secs(10));
    let limited = |secs| LlmError::RateLimit {
        retry_after: Some(Duration::from_secs(secs)),
        message: String::new(),
    };
    assert_eq!(policy.delay_for(1, &limited(3)), Duration::from_secs(3));
    assert_eq!(policy.delay_for(1, &limited(3600)), Duration::from_secs(10));
}

#[tokio::test(start_paused = true)]
async fn retries_until_success_waiting_the_backoff() {
    let policy = RetryPolicy::new(4)
        .with_base_delay(Duration::from_secs(1))
        .with_jitter(Jitter::None);
    let start = tokio::time::Instant::now();
    let mut seen = Vec::new();
    let result = retry(
        &policy,
        |attempt| async move {
            if attempt < 3 {
                Err(server_error())
            } else {
                Ok(attempt)
            }
        },
        |retry, error, delay| seen.push((retry, error.is_recoverable(), delay)),
    )
    .await;
    assert_eq!(result.unwrap(), 3);
    assert_eq!(
        seen,
        vec![
            (1, true, Duration::from_secs(1)),
            (2, true, Duration::from_secs(2))
        ]
    );
    assert_eq!(start.elapsed(), Duration::from_secs(3));
}

#[tokio::test(start_paused = true)]
async fn gives_up_after_max_attempts() {
    let policy = RetryPolicy::new(3).with_base_delay(Duration::from_millis(10));
    let mut calls = 0;
    let result: Result<(), _> = retry(
        &policy,
        |_| {
            calls += 1;
            async { Err(server_error()) }
        },
        |_, _, _| {},
    )
    .await;
    assert!(matches!(result, Err(LlmError::Server { status: 503, .. })));
    assert_eq!(calls, 3);
}

#[tokio::test(start_paused = true)]
async fn does_not_retry_unrecoverable_errors() {
    let policy = RetryPolicy::new(5);
    let mut calls = 0;
    let result: Result<(), _> = retry(
        &policy,
        |_| {
            calls += 1;
            async {
                Err(LlmError::Authentication {
                    message: "bad key".into(),
                })
            }
        },
        |_, _, _| panic!("must not retry"),
    )
    .await;
    assert!(matches!(result, Err(LlmError::Authentication { .. })));
    assert_eq!(calls, 1);
}

#[tokio::test(start_paused = true)]
async fn waits_for_retry_after() {
    let policy = RetryPolicy::new(2);
    let start = tokio::time::Instant::now();
    let result = retry(
        &policy,
        |attempt| async move {
            if attempt == 1 {
                Err(LlmError::RateLimit {
                    retry_after: Some(Duration::from_secs(7)),
                    message: String::new(),
                })
            } else {
                Ok(())
            }
        },
        |_, _, _| {},
    )
    .await;
    assert!(result.is_ok());
    assert_eq!(start.elapsed(), Duration::from_secs(7));
}
