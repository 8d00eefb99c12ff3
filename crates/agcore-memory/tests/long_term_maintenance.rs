//! Maintenance that runs by itself: decay, archiving and dedupe at a chosen
//! `now`, and the background schedule under tokio's paused clock.
#![cfg(test)]

use std::time::Duration;

use agcore_memory::long_term::{
    HistoryReason, InMemoryLongTerm, ListRequest, LongTermMemory, MaintenanceSchedule, MemoryType,
    NewMemory,
};
use chrono::Utc;

fn memory() -> LongTermMemory {
    LongTermMemory::new(InMemoryLongTerm::new())
}

#[tokio::test]
async fn decay_archive_and_dedupe_follow_the_clock() {
    let memory = memory();
    let a = memory.scope("agent", "alice").unwrap();
    let kept = a
        .save(NewMemory::new(MemoryType::User, "", "Alice prefers green tea").with_weight(3.0))
        .await
        .unwrap()
        .entry;
    let dup = a
        .save(NewMemory::new(
            MemoryType::User,
            "",
            "alice prefers green teas!",
        ))
        .await
        .unwrap()
        .entry;
    let other = a
        .save(NewMemory::new(MemoryType::User, "", "Alice walks the dog at seven").with_weight(0.5))
        .await
        .unwrap()
        .entry;
    let now = Utc::now();
    let report = memory.maintenance_all_at(now).await.unwrap();
    assert_eq!(
        (
            report.decayed,
            report.archived,
            report.deduplicated,
            report.active
        ),
        (0, 0, 1, 2),
        "{report:?}"
    );
    let superseded = a.get(dup.id).await.unwrap().unwrap();
    assert!(superseded.archived);
    let history = a.history(dup.id).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].reason, HistoryReason::Supersede);
    // 30 days (one half-life) later: 3.0 → 1.5, 0.5 → 0.25 (< 0.3: archived).
    let later = now + chrono::Duration::days(30);
    let report = memory.maintenance_all_at(later).await.unwrap();
    assert_eq!(
        (
            report.decayed,
            report.archived,
            report.deduplicated,
            report.active
        ),
        (2, 1, 0, 1),
        "{report:?}"
    );
    let w = a.get(kept.id).await.unwrap().unwrap().weight;
    assert!((w - 1.5).abs() < 1e-6, "{w}");
    assert!(a.get(other.id).await.unwrap().unwrap().archived);
    // A run a second later changes nothing (the decay is below MIN_DECAY).
    let report = memory
        .maintenance_all_at(later + chrono::Duration::seconds(1))
        .await
        .unwrap();
    assert_eq!((report.decayed, report.archived, report.active), (0, 0, 1));
}

#[tokio::test]
async fn dedupe_can_be_turned_off_and_previewed() {
    let memory = memory().with_dedupe(None).unwrap();
    let a = memory.scope("agent", "alice").unwrap();
    for text in ["Bob likes jazz records", "bob LIKES jazz record"] {
        a.save(NewMemory::new(MemoryType::User, "", text))
            .await
            .unwrap();
    }
    assert_eq!(memory.maintenance_all().await.unwrap().deduplicated, 0);
    let memory = memory.with_dedupe(Some(0.9)).unwrap();
    assert!(memory.clone().with_dedupe(Some(1.5)).is_err());
    let preview = memory.maintenance_preview().await.unwrap();
    assert_eq!((preview.deduplicated, preview.active), (1, 1));
    // The preview wrote nothing.
    let active = a.list(&ListRequest::all()).await.unwrap();
    assert_eq!(active.len(), 2);
    let done = memory.maintenance_all().await.unwrap();
    assert_eq!((done.deduplicated, done.active), (1, 1));
}

#[tokio::test(start_paused = true)]
async fn the_schedule_runs_every_interval_until_shut_down() {
    let memory = memory();
    let a = memory.scope("agent", "alice").unwrap();
    a.save(NewMemory::new(MemoryType::User, "", "Carol reads poetry"))
        .await
        .unwrap();
    let hour = Duration::from_secs(3600);
    let mut task = memory
        .spawn_maintenance(MaintenanceSchedule::every(hour))
        .unwrap();
    tokio::time::advance(hour / 2).await;
    tokio::task::yield_now().await;
    assert_eq!(task.runs(), 0, "no run before the first interval");
    tokio::time::advance(hour / 2).await;
    assert_eq!(task.wait_for_runs(1).await, 1);
    let report = task.last_report().unwrap();
    assert_eq!(report.active, 1);
    tokio::time::advance(hour * 2).await;
    assert!(task.wait_for_runs(3).await >= 3);
    assert_eq!(task.failures(), 0);
    task.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn dropping_the_handle_stops_the_schedule_and_failures_are_survived() {
    let memory = memory();
    let task = memory
        .spawn_maintenance(
            MaintenanceSchedule::every(Duration::from_secs(60)).first_run_after(Duration::ZERO),
        )
        .unwrap();
    let mut task = task;
    assert_eq!(task.wait_for_runs(1).await, 1);
    // A closed backend makes runs fail; the schedule logs them and goes on.
    memory.close().await.unwrap();
    tokio::time::advance(Duration::from_secs(60)).await;
    task.wait_for_runs(2).await;
    assert_eq!(task.failures(), 1);
    drop(task);
    tokio::time::advance(Duration::from_secs(600)).await;
    tokio::task::yield_now().await;
}

#[test]
fn spawning_outside_a_runtime_is_an_error() {
    let memory = memory();
    assert!(
        memory
            .spawn_maintenance(MaintenanceSchedule::every(Duration::from_secs(1)))
            .is_err()
    );
}
