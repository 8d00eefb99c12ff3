//! Retrying recoverable failures with capped exponential backoff and jitter.
//!
//! The backoff and the two jitter variants are those of "Exponential Backoff
//! And Jitter" (Marc Brooker, AWS Architecture Blog, 2015):
//! `cap_n = min(max_delay, base_delay * 2^(n-1))` for the `n`-th retry, then
//! *full jitter* draws uniformly from `[0, cap_n]` and *equal jitter* from
//! `[cap_n / 2, cap_n]`. A server's `Retry-After` (see
//! [`LlmError::retry_after`]) replaces the computed delay, capped by
//! [`RetryPolicy::max_retry_after`].

use std::future::Future;
use std::time::Duration;

use crate::LlmError;

/// How the computed backoff is randomised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Jitter {
    /// The exact exponential delay (deterministic; useful in tests).
    None,
    /// Uniform in `[0, delay]`: spreads competing clients the most.
    #[default]
    Full,
    /// Uniform in `[delay / 2, delay]`: never retries almost at once.
    Equal,
}

/// When and how long to wait before trying a failed request again.
///
/// Only errors with [`LlmError::is_recoverable`] are retried, and at most
/// `max_attempts` attempts are made in total (the first one included).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use agcore_llm::{Jitter, RetryPolicy};
///
/// let policy = RetryPolicy::new(4)
///     .with_base_delay(Duration::from_millis(200))
///     .with_max_delay(Duration::from_secs(5))
///     .with_jitter(Jitter::None);
/// assert_eq!(policy.backoff(1), Duration::from_millis(200));
/// assert_eq!(policy.backoff(3), Duration::from_millis(800));
/// assert_eq!(policy.backoff(10), Duration::from_secs(5));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Total attempts including the first; `1` disables retries. Default 3.
    pub max_attempts: u32,
    /// Delay before the first retry, before jitter. Default 500 ms.
    pub base_delay: Duration,
    /// Upper bound of the exponential delay. Default 30 s.
    pub max_delay: Duration,
    /// Randomisation of the delay. Default [`Jitter::Full`].
    pub jitter: Jitter,
    /// Upper bound applied to a server's `Retry-After`. Default 60 s.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            jitter: Jitter::Full,
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The default policy with `max_attempts` total attempts (at least 1).
    pub fn new(max_attempts: u32) -> Self {
        Self {
            max_attempts: max_attempts.max(1),
            ..Self::default()
        }
    }

    /// A policy that never retries.
    pub fn no_retry() -> Self {
        Self::new(1)
    }

    /// Sets the delay before the first retry.
    pub fn with_base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// Sets the cap of the exponential delay.
    pub fn with_max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Sets the jitter.
    pub fn with_jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }

    /// Sets the cap applied to a server's `Retry-After`.
    pub fn with_max_retry_after(mut self, cap: Duration) -> Self {
        self.max_retry_after = cap;
        self
    }

    /// The exponential delay before retry number `retry` (1 for the first
    /// retry), before jitter: `min(max_delay, base_delay * 2^(retry-1))`.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exponent = retry.saturating_sub(1).min(31);
        self.base_delay
            .checked_mul(1u32 << exponent)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// The delay to wait before retry number `retry` after `error`: the
    /// server's `Retry-After` capped by `max_retry_after` when sent, otherwise
    /// the jittered [`RetryPolicy::backoff`].
    pub fn delay_for(&self, retry: u32, error: &LlmError) -> Duration {
        if let Some(after) = error.retry_after() {
            return after.min(self.max_retry_after);
        }
        let cap = self.backoff(retry);
        match self.jitter {
            Jitter::None => cap,
            Jitter::Full => random_between(Duration::ZERO, cap),
            Jitter::Equal => random_between(cap / 2, cap),
        }
    }

    /// Whether attempt number `attempt` (1-based) that failed with `error`
    /// should be followed by another attempt.
    pub fn should_retry(&self, attempt: u32, error: &LlmError) -> bool {
        error.is_recoverable() && attempt < self.max_attempts
    }
}

fn random_between(low: Duration, high: Duration) -> Duration {
    let (low, high) = (low.as_micros(), high.as_micros());
    if high <= low {
        return Duration::from_micros(u64::try_from(low).unwrap_or(u64::MAX));
    }
    let micros = rand::random_range(low..=high);
    Duration::from_micros(u64::try_from(micros).unwrap_or(u64::MAX))
}

/// Runs `operation` until it succeeds, fails with an error that is not
/// recoverable, or `policy.max_attempts` attempts were made.
///
/// `operation` receives the attempt number (1 for the first try). Before each
/// retry, `on_retry(retry, &error, delay)` is called — `retry` is 1 for the
/// first retry, `error` the failure being retried, `delay` the wait about to
/// start — and then the task sleeps for `delay` (`tokio::time::sleep`).
///
/// # Errors
/// The last error: the first non-recoverable one, or the one of the final attempt.
///
/// # Examples
///
/// ```
/// use agcore_llm::{LlmError, RetryPolicy, retry};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let policy = RetryPolicy::new(3).with_base_delay(std::time::Duration::from_millis(1));
/// let mut retries = Vec::new();
/// let answer = retry(
///     &policy,
///     |attempt| async move {
///         if attempt < 2 { Err(LlmError::Connection("reset".into())) } else { Ok(attempt) }
///     },
///     |retry, _error, _delay| retries.push(retry),
/// )
/// .await;
/// assert_eq!(answer.unwrap(), 2);
/// assert_eq!(retries, vec![1]);
/// # });
/// ```
pub async fn retry<T, F, Fut, R>(
    policy: &RetryPolicy,
    mut operation: F,
    mut on_retry: R,
) -> Result<T, LlmError>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, LlmError>>,
    R: FnMut(u32, &LlmError, Duration),
{
    let mut attempt = 1;
    loop {
        match operation(attempt).await {
            Ok(value) => return Ok(value),
            Err(error) if policy.should_retry(attempt, &error) => {
                let delay = policy.delay_for(attempt, &error);
                tracing::debug!(attempt, delay_ms = delay.as_millis() as u64, error = %error, "retrying");
                on_retry(attempt, &error, delay);
                tokio::time::sleep(delay).await;
                attempt += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests;
