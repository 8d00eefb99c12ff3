//! Weight and archive maths on every backend: use reinforcement and decay,
//! the usage log, archiving below a threshold, core and archived listings,
//! age decay in maintenance.
#![cfg(test)]

use agcore_memory::long_term::{
    InMemoryLongTerm, ListOrder, ListRequest, LongTermMemory, MemoryType, MemoryUpdate, NewMemory,
    WeightRules, detect_references,
};
use agcore_memory_sqlite::SqliteLongTerm;

async fn backends(rules: WeightRules) -> Vec<(&'static str, LongTermMemory)> {
    vec![
        (
            "in-memory",
            LongTermMemory::new(InMemoryLongTerm::new())
                .with_rules(rules)
                .unwrap(),
        ),
        (
            "sqlite",
            LongTermMemory::new(SqliteLongTerm::open_in_memory().await.unwrap())
                .with_rules(rules)
                .unwrap(),
        ),
    ]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[tokio::test(flavor = "multi_thread")]
async fn uses_raise_and_decay_weights_and_are_logged() {
    for (name, memory) in backends(WeightRules::default()).await {
        let m = memory.scope("a", "u").unwrap();
        let tea = m
            .save(NewMemory::new(MemoryType::User, "", "Prefers green tea"))
            .await
            .unwrap()
            .entry;
        let jazz = m
            .save(NewMemory::new(MemoryType::User, "", "Listens to jazz"))
            .await
            .unwrap()
            .entry;
        assert_eq!(tea.weight, 1.0);
        // 1.0 → +0.5 → +0.5 = 2.0 ; 1.0 → ×0.9 → ×0.9 = 0.81
        for _ in 0..2 {
            let n = m
                .record_use("s1", "tea?", &[tea.id, tea.id], true)
                .await
                .unwrap();
            assert_eq!(n, 1, "{name}: duplicate ids count once");
            m.record_use("s1", "music?", &[jazz.id, 424_242], false)
                .await
                .unwrap();
        }
        let tea = m.get(tea.id).await.unwrap().unwrap();
        let jazz = m.get(jazz.id).await.unwrap().unwrap();
        assert!(close(tea.weight, 2.0), "{name}: {}", tea.weight);
        assert!(close(jazz.weight, 0.81), "{name}: {}", jazz.weight);
        assert_eq!((tea.use_count, jazz.use_count), (2, 2));
        assert!(tea.last_used_at.is_some());
        let log = m.usage_log(tea.id).await.unwrap();
        assert_eq!(log.len(), 2, "{name}");
        assert!(
            log.iter()
                .all(|r| r.was_referenced && r.session_id == "s1" && r.query == "tea?")
        );
        assert!(
            m.usage_log(jazz.id)
                .await
                .unwrap()
                .iter()
                .all(|r| !r.was_referenced)
        );
        // Core: weight ≥ 2.0 (the default core threshold).
        let core = m.core().await.unwrap();
        assert_eq!(
            core.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![tea.id],
            "{name}"
        );
        // The weight is capped at max (10).
        for _ in 0..30 {
            m.record_use("s1", "tea", &[tea.id], true).await.unwrap();
        }
        assert_eq!(m.get(tea.id).await.unwrap().unwrap().weight, 10.0, "{name}");
        // Deleting an entry drops its usage rows with it.
        m.delete(jazz.id).await.unwrap();
        assert!(m.usage_log(jazz.id).await.unwrap().is_empty(), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn archive_below_and_listings() {
    for (name, memory) in backends(WeightRules::default()).await {
        let m = memory.scope("a", "u").unwrap();
        let mut ids = Vec::new();
        for (i, w) in [0.1, 0.29, 0.3, 1.0, 5.0].iter().enumerate() {
            let e = m
                .save(
                    NewMemory::new(MemoryType::User, "", format!("memory number {i}"))
                        .with_weight(*w),
                )
                .await
                .unwrap()
                .entry;
            ids.push(e.id);
        }
        assert_eq!(m.archive_below(0.3).await.unwrap(), 2, "{name}");
        assert_eq!(m.archive_below(0.3).await.unwrap(), 0, "{name}: idempotent");
        let archived: Vec<i64> = m.archived().await.unwrap().iter().map(|e| e.id).collect();
        let mut sorted = archived.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, ids[..2].to_vec(), "{name}");
        let by_weight = m
            .list(&ListRequest::all().order(ListOrder::Weight))
            .await
            .unwrap();
        assert_eq!(
            by_weight.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![ids[4], ids[3], ids[2]],
            "{name}"
        );
        let limited = m
            .list(&ListRequest::all().order(ListOrder::Created).limit(2))
            .await
            .unwrap();
        assert_eq!(
            limited.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![ids[2], ids[3]],
            "{name}"
        );
        assert_eq!(
            m.list(&ListRequest::all().of_type(MemoryType::Project))
                .await
                .unwrap()
                .len(),
            0
        );
        let restored = m.restore(ids[0]).await.unwrap();
        assert!(!restored.archived);
        assert_eq!(m.archived().await.unwrap().len(), 1, "{name}");
        assert!(m.archive_below(f64::NAN).await.is_err());
        // Weight set by update is clamped to the range.
        let e = m
            .update(ids[3], MemoryUpdate::new().weight(99.0))
            .await
            .unwrap();
        assert_eq!(e.weight, 10.0);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn maintenance_decays_by_age_and_archives() {
    // A half-life of one microsecond-ish: everything ages to ~0 immediately,
    // except entries at the weight floor, which stay at `min`.
    let mut fast = WeightRules::default();
    fast.half_life_days = 1e-9;
    for (name, memory) in backends(fast).await {
        let m = memory.scope("a", "u").unwrap();
        m.save(NewMemory::new(MemoryType::User, "", "old fact one"))
            .await
            .unwrap();
        m.save(NewMemory::new(MemoryType::User, "", "old fact two").with_weight(9.0))
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let r = m.maintenance().await.unwrap();
        assert_eq!(
            (r.decayed, r.archived, r.active),
            (2, 2, 0),
            "{name}: {r:?}"
        );
        assert_eq!(m.archived().await.unwrap().len(), 2);
        assert!(m.archived().await.unwrap().iter().all(|e| e.weight < 0.3));
        let r = m.maintenance().await.unwrap();
        assert_eq!(
            (r.decayed, r.archived),
            (0, 0),
            "{name}: archived entries are not aged again"
        );
    }
    // The default 30-day half-life barely moves fresh entries and archives nothing.
    for (name, memory) in backends(WeightRules::default()).await {
        let m = memory.scope("a", "u").unwrap();
        let e = m
            .save(NewMemory::new(MemoryType::User, "", "fresh fact"))
            .await
            .unwrap()
            .entry;
        let r = m.maintenance().await.unwrap();
        assert_eq!((r.archived, r.active), (0, 1), "{name}");
        let w = m.get(e.id).await.unwrap().unwrap().weight;
        assert!(w > 0.999_99 && w <= 1.0, "{name}: {w}");
        let total = memory.maintenance_all().await.unwrap();
        assert_eq!(total.active, 1);
    }
}

#[tokio::test]
async fn invalid_rules_are_refused() {
    let mut bad = WeightRules::default();
    bad.unreferenced_decay = -0.1;
    assert!(
        LongTermMemory::new(InMemoryLongTerm::new())
            .with_rules(bad)
            .is_err()
    );
}

#[test]
fn references_are_detected_by_keyword_overlap() {
    let now = chrono::Utc::now();
    let entry = |id: i64, content: &str| agcore_memory::long_term::MemoryEntry {
        id,
        agent_name: "a".into(),
        user_id: "u".into(),
        memory_type: MemoryType::User,
        name: String::new(),
        content: content.into(),
        description: String::new(),
        metadata: serde_json::Map::new(),
        tags: vec![],
        weight: 1.0,
        archived: false,
        use_count: 0,
        last_used_at: None,
        weight_updated_at: now,
        created_at: now,
        updated_at: now,
    };
    let memories = [
        entry(1, "用户偏好简洁的回答"),
        entry(2, "Deadline is April 15"),
        entry(3, "的"),
    ];
    assert_eq!(
        detect_references("好的，我会给出简洁的回答。", &memories, 0.3),
        vec![1]
    );
    assert!(detect_references("好的，我会给出简洁的回答。", &memories, 0.5).is_empty());
    assert_eq!(
        detect_references("The deadline: April 15.", &memories, 1.0),
        vec![2]
    );
    assert!(detect_references("", &memories, 0.1).is_empty());
}
