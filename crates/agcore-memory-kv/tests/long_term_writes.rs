//! Every kind of long-term write (save, merge, update, supersede, use,
//! archive, maintenance with buffer purge, buffer, import, delete) reaches
//! the backend: after each one, a store reopened from the backend holds
//! exactly the state of the live one.

use std::sync::Arc;

use agcore_memory::long_term::{
    HistoryReason, LongTermBackend, LongTermSnapshot, MemoryScope, MemoryType, MemoryUpdate,
    NewMemory, UsageRecord, WeightRules, near_duplicates,
};
use agcore_memory_kv::{BTreeBackend, KvLongTerm};
use chrono::{Duration, Utc};

/// History and usage rows grouped by entry id (the backend keeps them per
/// entry; the order within an entry is what the API shows).
fn normalized(mut snapshot: LongTermSnapshot) -> LongTermSnapshot {
    for scope in &mut snapshot.scopes {
        scope.history.sort_by_key(|h| h.memory_id);
        scope.usage.sort_by_key(|u| u.memory_id);
    }
    snapshot
}

async fn same_after_reopening(live: &KvLongTerm<BTreeBackend>, backend: &BTreeBackend, step: &str) {
    let reopened = KvLongTerm::open(Arc::new(backend.reopen())).await.unwrap();
    assert_eq!(
        normalized(reopened.snapshot().unwrap()),
        normalized(live.snapshot().unwrap()),
        "after {step}"
    );
}

#[tokio::test]
async fn every_write_is_persisted() {
    let backend = BTreeBackend::new();
    let lt = KvLongTerm::open(Arc::new(backend.clone())).await.unwrap();
    let (a, b) = (
        MemoryScope::new("agent", "用户").unwrap(),
        MemoryScope::new("agent", "bob").unwrap(),
    );
    let (rules, now) = (WeightRules::default(), Utc::now());
    let new = |text: &str| NewMemory::new(MemoryType::User, "", text);
    let tea = lt
        .save(&a, new("用户喜欢喝绿茶"), &rules, now)
        .await
        .unwrap()
        .entry
        .id;
    let green = new("The user likes green tea very much");
    lt.save(&a, green, &rules, now).await.unwrap();
    let again = new("The user likes green tea very much indeed");
    lt.save(&a, again, &rules, now).await.unwrap();
    lt.save(&a, new("用户喜欢喝绿茶"), &rules, now)
        .await
        .unwrap();
    let mut odd = new("a weight whose JSON text reads back one ulp off");
    odd.weight = Some(0.44166130716816643);
    lt.save(&b, odd, &rules, now).await.unwrap();
    same_after_reopening(&lt, &backend, "saves and a merge").await;
    let update = MemoryUpdate::new().content("用户喜欢喝乌龙茶");
    lt.update(&a, tea, update, HistoryReason::Update, &rules, now)
        .await
        .unwrap();
    same_after_reopening(&lt, &backend, "update").await;
    let duplicates = near_duplicates(&lt.dedupe_terms(&a).await.unwrap(), 0.5);
    assert!(!duplicates.is_empty());
    let n = lt
        .supersede_duplicates(&a, &duplicates, &rules, now)
        .await
        .unwrap();
    assert_eq!(n, duplicates.len());
    same_after_reopening(&lt, &backend, "supersede").await;
    let record = UsageRecord::new("s", "茶", vec![tea, tea, 999], true);
    lt.record_use(&a, record, &rules, now).await.unwrap();
    same_after_reopening(&lt, &backend, "record_use").await;
    lt.archive_below(&a, 10.0, now).await.unwrap();
    same_after_reopening(&lt, &backend, "archive_below").await;
    let first = lt.buffer_append(&b, "s", "q1", "a1", now).await.unwrap();
    lt.buffer_append(&b, "s", "q2", "a2", now).await.unwrap();
    lt.buffer_mark_applied(&b, "s", first.id, now)
        .await
        .unwrap();
    same_after_reopening(&lt, &backend, "buffer").await;
    let later = now + Duration::days(400);
    lt.maintenance(&b, &rules, later, later).await.unwrap();
    lt.maintenance(&a, &rules, later, later).await.unwrap();
    same_after_reopening(&lt, &backend, "maintenance").await;
    let mut imported = lt.get(&a, tea).await.unwrap().unwrap();
    imported.agent_name = "agent".into();
    imported.user_id = "bob".into();
    lt.import_entries(vec![imported.clone(), imported])
        .await
        .unwrap();
    same_after_reopening(&lt, &backend, "import").await;
    lt.delete(&a, tea, now).await.unwrap();
    same_after_reopening(&lt, &backend, "delete").await;
    assert_eq!(lt.scopes().await.unwrap().len(), 2);
}
