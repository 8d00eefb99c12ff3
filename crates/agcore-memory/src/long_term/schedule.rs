//! Maintenance on a schedule: [`LongTermMemory::spawn_maintenance`] runs
//! [`LongTermMemory::maintenance_all`] in a background tokio task and logs
//! each run's counts (`docs/memory.md`, *Maintenance*).

use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use super::memory::LongTermMemory;
use super::records::MaintenanceReport;
use crate::MemoryError;

/// The shortest interval a schedule accepts; shorter ones are raised to it.
const MIN_INTERVAL: Duration = Duration::from_millis(1);

/// When scheduled maintenance runs: first after `first_run_after`, then
/// every `interval` (a run that overruns delays the next one instead of
/// bunching runs up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MaintenanceSchedule {
    /// Time between the starts of two runs (at least 1 ms).
    pub interval: Duration,
    /// Time from the spawn to the first run (default: `interval`).
    pub first_run_after: Duration,
}

impl MaintenanceSchedule {
    /// A run every `interval` (raised to 1 ms when shorter), the first one
    /// `interval` after the spawn.
    pub fn every(interval: Duration) -> Self {
        let interval = interval.max(MIN_INTERVAL);
        Self {
            interval,
            first_run_after: interval,
        }
    }

    /// Runs first `delay` after the spawn (`Duration::ZERO`: at once).
    #[must_use]
    pub fn first_run_after(mut self, delay: Duration) -> Self {
        self.first_run_after = delay;
        self
    }
}

/// What the background task has done so far.
#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    runs: u64,
    failures: u64,
    last: Option<MaintenanceReport>,
}

/// The handle of a scheduled maintenance task from
/// [`LongTermMemory::spawn_maintenance`].
///
/// Dropping it stops the schedule: no run starts after the drop (a run in
/// progress finishes in the background). [`MaintenanceTask::shutdown`]
/// stops it and waits for the task to end.
#[derive(Debug)]
pub struct MaintenanceTask {
    stop: Option<watch::Sender<bool>>,
    progress: watch::Receiver<Progress>,
    handle: Option<JoinHandle<()>>,
}

impl MaintenanceTask {
    /// Finished runs, failed ones included.
    pub fn runs(&self) -> u64 {
        self.progress.borrow().runs
    }

    /// Runs that failed (each was logged with `tracing::warn!`).
    pub fn failures(&self) -> u64 {
        self.progress.borrow().failures
    }

    /// The counts of the last successful run, `None` before one.
    pub fn last_report(&self) -> Option<MaintenanceReport> {
        self.progress.borrow().last
    }

    /// Waits until at least `runs` runs have finished (or the task ended);
    /// returns the number finished.
    pub async fn wait_for_runs(&mut self, runs: u64) -> u64 {
        // An error means the task ended: nothing more will change.
        let _ended = self.progress.wait_for(|p| p.runs >= runs).await.map(|_| ());
        self.runs()
    }

    /// Stops the schedule and waits for the task to end (after the run in
    /// progress, if any).
    pub async fn shutdown(mut self) {
        self.signal_stop();
        if let Some(handle) = self.handle.take()
            && let Err(e) = handle.await
        {
            tracing::warn!(error = %e, "long-term memory maintenance task ended abnormally");
        }
    }

    fn signal_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // No receiver left means the task already ended.
            let _sent = stop.send(true);
        }
    }
}

impl Drop for MaintenanceTask {
    fn drop(&mut self) {
        self.signal_stop();
    }
}

impl LongTermMemory {
    /// Starts [`LongTermMemory::maintenance_all`] on `schedule` in a
    /// background tokio task. Each run is logged with `tracing::info!`
    /// (fields `decayed`, `archived`, `deduplicated`, `buffer_purged`,
    /// `active`, `elapsed_ms`); a failed run is logged with `tracing::warn!`
    /// and the schedule goes on. Stops when the returned handle is dropped
    /// or shut down.
    ///
    /// # Errors
    /// [`MemoryError::Unavailable`] when called outside a tokio runtime.
    pub fn spawn_maintenance(
        &self,
        schedule: MaintenanceSchedule,
    ) -> Result<MaintenanceTask, MemoryError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| {
            MemoryError::Unavailable(format!("scheduled maintenance needs a tokio runtime: {e}"))
        })?;
        let (stop_tx, stop_rx) = watch::channel(false);
        let (progress_tx, progress_rx) = watch::channel(Progress::default());
        let memory = self.clone();
        let handle = runtime.spawn(run_schedule(memory, schedule, stop_rx, progress_tx));
        Ok(MaintenanceTask {
            stop: Some(stop_tx),
            progress: progress_rx,
            handle: Some(handle),
        })
    }
}

async fn run_schedule(
    memory: LongTermMemory,
    schedule: MaintenanceSchedule,
    mut stop: watch::Receiver<bool>,
    progress: watch::Sender<Progress>,
) {
    let interval = schedule.interval.max(MIN_INTERVAL);
    let start = tokio::time::Instant::now() + schedule.first_run_after;
    let mut ticks = tokio::time::interval_at(start, interval);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            // A stop signal, or the handle dropped.
            _ = stop.wait_for(|stopped| *stopped) => return,
            _ = ticks.tick() => {}
        }
        let started = Instant::now();
        let outcome = memory.maintenance_all().await;
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        progress.send_modify(|p| {
            p.runs += 1;
            match &outcome {
                Ok(report) => p.last = Some(*report),
                Err(_) => p.failures += 1,
            }
        });
        match outcome {
            Ok(r) => tracing::info!(
                decayed = r.decayed,
                archived = r.archived,
                deduplicated = r.deduplicated,
                buffer_purged = r.buffer_purged,
                active = r.active,
                elapsed_ms,
                "long-term memory maintenance"
            ),
            Err(e) => tracing::warn!(
                error = %e,
                elapsed_ms,
                "long-term memory maintenance failed"
            ),
        }
    }
}
