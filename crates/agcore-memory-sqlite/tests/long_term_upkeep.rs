//! The set-based SQLite maintenance equals the row-by-row reference: same
//! report, same weights, archive flags and weight times, over entries of
//! many ages and weights, including rows whose decay is below `MIN_DECAY`.
#![cfg(test)]

use agcore_memory::long_term::sql::row_by_row_maintenance;
use agcore_memory::long_term::{
    ArchivedFilter, ListRequest, LongTermBackend, MemoryScope, MemoryType, NewMemory, WeightRules,
    apply,
};
use agcore_memory_sqlite::SqliteLongTerm;
use chrono::{Duration, SubsecRound, Utc};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_based_maintenance_equals_the_row_by_row_reference() {
    let scope = MemoryScope::new("agent", "u").unwrap();
    let other = MemoryScope::new("agent", "v").unwrap();
    let rules = WeightRules::default();
    let now = Utc::now().trunc_subsecs(6);
    let mut entries = Vec::new();
    for i in 0..300_i64 {
        let at = now - Duration::seconds(i * i * 97) - Duration::microseconds(i);
        let new = NewMemory::new(MemoryType::User, "", format!("fact number {i} of many"));
        let mut e = apply::new_entry(if i % 5 == 0 { &other } else { &scope }, new, &rules, at);
        e.weight = 0.25 + (i % 13) as f64 * 0.7;
        e.archived = i % 17 == 0;
        entries.push(e);
    }
    let set = SqliteLongTerm::open_in_memory().await.unwrap();
    let reference = SqliteLongTerm::open_in_memory().await.unwrap();
    set.import_entries(entries.clone()).await.unwrap();
    reference.import_entries(entries).await.unwrap();
    for later in [Duration::zero(), Duration::seconds(1), Duration::days(3)] {
        let at = now + later;
        let purge = at - Duration::days(7);
        let a = set.maintenance(&scope, &rules, at, purge).await.unwrap();
        let b = row_by_row_maintenance(reference.driver(), &scope, &rules, at, purge)
            .await
            .unwrap();
        assert_eq!(a, b, "after {later}");
        assert!(a.decayed > 0 || later == Duration::seconds(1), "{a:?}");
        let mut all = ListRequest::all();
        all.archived = ArchivedFilter::Include;
        for s in [&scope, &other] {
            let x = set.list(s, &all).await.unwrap();
            let y = reference.list(s, &all).await.unwrap();
            assert_eq!(x.len(), y.len());
            for (x, y) in x.iter().zip(&y) {
                assert_eq!(x.content, y.content);
                assert!((x.weight - y.weight).abs() < 1e-12, "{x:?} vs {y:?}");
                assert_eq!(x.archived, y.archived, "{}", x.content);
                assert_eq!(x.weight_updated_at, y.weight_updated_at, "{}", x.content);
                assert_eq!(x.updated_at, y.updated_at, "{}", x.content);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_dedupe_terms_equal_the_analyzed_ones() {
    use agcore_memory::long_term::TermSet;
    let scope = MemoryScope::new("agent", "u").unwrap();
    let lt = SqliteLongTerm::open_in_memory().await.unwrap();
    let memory = agcore_memory::long_term::LongTermMemory::new(lt.clone());
    let m = memory.scoped(scope.clone());
    for (name, text) in [
        ("", "Alice adopted two puppies"),
        ("drink", "用户喜欢绿茶 and green tea"),
    ] {
        m.save(NewMemory::new(MemoryType::User, name, text).with_description("noted in May"))
            .await
            .unwrap();
    }
    let stored = lt.dedupe_terms(&scope).await.unwrap();
    let listed = lt.list(&scope, &ListRequest::all()).await.unwrap();
    let analyzed: Vec<TermSet> = listed.iter().map(TermSet::of).collect();
    assert_eq!(stored.len(), 2);
    for s in &stored {
        let a = analyzed.iter().find(|a| a.id == s.id).unwrap();
        assert_eq!(
            (s.memory_type, s.weight, s.created_at),
            (a.memory_type, a.weight, a.created_at)
        );
        assert_eq!(s.terms, a.terms);
    }
}
