//! The background embedding queue's settings ([`EmbeddingQueueConfig`]) and
//! counters ([`QueueCounts`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Settings of the background embedding queue.
///
/// Defaults: 10,000 pending texts before `enqueue` waits for room, batches
/// of up to 64 texts (capped by the model's `max_batch`), a first retry
/// after 1 s doubling up to 32 s while the embedding server fails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct EmbeddingQueueConfig {
    /// Texts waiting to be embedded before `enqueue` waits for room.
    pub capacity: usize,
    /// Texts per embedding call.
    pub batch_size: usize,
    /// Delay before a failed batch is tried again, in milliseconds; doubles
    /// up to 32× on repeated failures.
    pub retry_delay_ms: u64,
}

impl Default for EmbeddingQueueConfig {
    fn default() -> Self {
        Self {
            capacity: 10_000,
            batch_size: 64,
            retry_delay_ms: 1_000,
        }
    }
}

impl EmbeddingQueueConfig {
    /// Sets the capacity (at least 1).
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// Sets the batch size (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Sets the first retry delay.
    pub fn with_retry_delay(mut self, delay: Duration) -> Self {
        self.retry_delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self
    }
}

/// Counters of the embedding queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueCounts {
    /// Texts waiting to be embedded (including batches waiting for a retry).
    pub pending: usize,
    /// Texts embedded and written since the index was opened.
    pub embedded: u64,
    /// Texts skipped because their stored vector was up to date.
    pub skipped: u64,
    /// Embedding calls that failed (recoverable ones are retried).
    pub failures: u64,
}
